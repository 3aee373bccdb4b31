import { createHash } from 'node:crypto'
import { ok, type RequestContext, type Route } from '../context.js'
import { currencyOf, toStandardUnit } from '../currencies.js'
import { type Issue, invalidListParams } from '../errors.js'
import { iso } from '../ids.js'
import type { Payment } from '../model.js'
import { fiatDisplay, type SandboxState, tokenAmountWithDisplay } from '../state.js'

/** The list endpoint's status vocabulary has no `cancelled`: a cancelled payment is listed (and filtered) as failed. */
const listStatuses = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'] as const
const listStatusOf = (payment: Payment): string =>
  payment.status === 'cancelled' ? 'failed' : payment.status

const known = new Set([
  'startTs',
  'endTs',
  'token_symbol',
  'asset',
  'network',
  'sortBy',
  'sortDir',
  'cursor',
  'limit',
  'status',
  'referenceId',
  'merchantId',
])
const repeatable = new Set(['token_symbol', 'status', 'merchantId'])

const rfc3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?([Zz]|[+-]([0-9]{2}):([0-9]{2}))$/
const caip2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
const referencePattern = /^[A-Za-z0-9 /:.,+-]+$/
const symbolPattern = /^[A-Za-z0-9.]{1,20}$/

type ListQuery = {
  startTs?: number
  endTs?: number
  tokenSymbols: string[]
  networks: string[]
  sortBy: 'date' | 'amount'
  sortDir: 'asc' | 'desc'
  cursor?: string
  limit: number
  statuses: string[]
  referenceId?: string
  merchantIds: string[]
}

/** Every rule of the spec's query table; all problems are reported together as 400 invalid_params. */
function parseListQuery(query: URLSearchParams): ListQuery {
  const issues: Issue[] = []
  const problem = (field: string, message: string) => issues.push({ field, message })
  for (const name of new Set(query.keys())) {
    if (!known.has(name)) problem(name, 'unknown parameter')
    else if (!repeatable.has(name) && query.getAll(name).length > 1) problem(name, 'must not repeat')
  }
  const single = (name: string) => query.get(name) ?? undefined
  const parsed: ListQuery = {
    tokenSymbols: [],
    networks: [],
    sortBy: 'date',
    sortDir: 'desc',
    limit: 50,
    statuses: [],
    merchantIds: [],
  }
  for (const name of ['startTs', 'endTs'] as const) {
    const text = single(name)
    if (text === undefined) continue
    const time = parseRfc3339(text)
    if (time === undefined) problem(name, 'must be an RFC 3339 date-time, e.g. 2026-02-18T00:00:00Z')
    else parsed[name] = time
  }
  if (parsed.startTs !== undefined && parsed.endTs !== undefined && parsed.startTs > parsed.endTs) {
    problem('startTs', 'must not be after endTs')
  }
  const symbols = [...query.getAll('token_symbol'), ...query.getAll('asset')]
  for (const symbol of symbols) {
    if (symbol.length === 0) problem('token_symbol', 'min length 1')
    else if (symbol.includes(':') || symbol.includes('/'))
      problem('token_symbol', 'CAIP-19 ids are not supported')
    else if (!symbolPattern.test(symbol)) problem('token_symbol', 'must be a token symbol such as USDC')
    else parsed.tokenSymbols.push(symbol.toUpperCase())
  }
  const network = single('network')
  if (network !== undefined) {
    for (const chain of network.split(',')) {
      if (!caip2.test(chain)) problem('network', `${JSON.stringify(chain)} is not a CAIP-2 chain id`)
      else parsed.networks.push(chain)
    }
  }
  const sortBy = single('sortBy')
  if (sortBy !== undefined) {
    if (sortBy === 'date' || sortBy === 'amount') parsed.sortBy = sortBy
    else problem('sortBy', 'must be date or amount')
  }
  const sortDir = single('sortDir')
  if (sortDir !== undefined) {
    if (sortDir === 'asc' || sortDir === 'desc') parsed.sortDir = sortDir
    else problem('sortDir', 'must be asc or desc')
  }
  const limit = single('limit')
  if (limit !== undefined) {
    if (!/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200) {
      problem('limit', 'must be an integer from 1 to 200')
    } else parsed.limit = Number(limit)
  }
  for (const status of query.getAll('status')) {
    if ((listStatuses as readonly string[]).includes(status)) parsed.statuses.push(status)
    else problem('status', `must be one of ${listStatuses.join(', ')}`)
  }
  const referenceId = single('referenceId')
  if (referenceId !== undefined) {
    if (referenceId.length < 3 || referenceId.length > 35)
      problem('referenceId', 'must be 3 to 35 characters')
    else if (!referencePattern.test(referenceId))
      problem('referenceId', 'allowed: letters, digits and " /:.,+-"')
    else parsed.referenceId = referenceId
  }
  for (const merchantId of query.getAll('merchantId')) {
    if (merchantId.length === 0) problem('merchantId', 'min length 1')
    else parsed.merchantIds.push(merchantId)
  }
  const cursor = single('cursor')
  if (cursor !== undefined) parsed.cursor = cursor
  if (issues.length > 0) throw invalidListParams(issues)
  return parsed
}

function parseRfc3339(text: string): number | undefined {
  const match = rfc3339.exec(text)
  if (match === null) return undefined
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined
  if (hour > 23 || minute > 59 || second > 60) return undefined
  if (match[9] !== undefined && (Number(match[9]) > 23 || Number(match[10]) > 59)) return undefined
  const time = Date.parse(
    text
      .replace(/t/, 'T')
      .replace(/z$/, 'Z')
      .replace(/:60(\.|Z|[+-])/, ':59$1'),
  )
  return Number.isNaN(time) ? undefined : time
}

/** Cursors bind the position to the filters and sort they came from; any other use is invalid_params. */
function queryFingerprint(query: ListQuery): string {
  const { cursor: _cursor, limit: _limit, ...rest } = query
  return createHash('sha256').update(JSON.stringify(rest)).digest('base64url').slice(0, 16)
}

type Position = { key: bigint; id: string }

function encodeCursor(query: ListQuery, position: Position): string {
  const payload = JSON.stringify({
    v: 1,
    q: queryFingerprint(query),
    k: position.key.toString(),
    id: position.id,
  })
  return Buffer.from(payload, 'utf8').toString('base64url')
}

function decodeCursor(query: ListQuery, cursor: string): Position {
  const invalid = () => invalidListParams([{ field: 'cursor', message: 'not a cursor from this query' }])
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw invalid()
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw invalid()
  }
  const value = payload as { v?: unknown; q?: unknown; k?: unknown; id?: unknown }
  if (
    value === null ||
    typeof value !== 'object' ||
    value.v !== 1 ||
    value.q !== queryFingerprint(query) ||
    typeof value.k !== 'string' ||
    !/^[0-9]{1,40}$/.test(value.k) ||
    typeof value.id !== 'string'
  ) {
    throw invalid()
  }
  return { key: BigInt(value.k), id: value.id }
}

const sortKey = (payment: Payment, sortBy: ListQuery['sortBy']): bigint =>
  sortBy === 'amount' ? BigInt(payment.amount.value) : BigInt(payment.createdAt)

function matches(payment: Payment, query: ListQuery): boolean {
  const route = payment.chosen?.route
  if (query.merchantIds.length > 0 && !query.merchantIds.includes(payment.merchantId)) return false
  if (query.statuses.length > 0 && !query.statuses.includes(listStatusOf(payment))) return false
  if (query.startTs !== undefined && payment.createdAt < query.startTs) return false
  if (query.endTs !== undefined && payment.createdAt >= query.endTs) return false
  if (
    query.tokenSymbols.length > 0 &&
    (route === undefined || !query.tokenSymbols.includes(route.display.symbol))
  ) {
    return false
  }
  if (query.networks.length > 0 && (route === undefined || !query.networks.includes(route.chainId)))
    return false
  if (
    query.referenceId !== undefined &&
    !payment.referenceId.toLowerCase().includes(query.referenceId.toLowerCase())
  ) {
    return false
  }
  return true
}

/** Keyset pagination over (sort key, payment id): stable while payments are added between pages. */
function listPage(state: SandboxState, query: ListQuery) {
  const selected = [...state.payments.values()].filter((payment) => {
    state.refresh(payment)
    return matches(payment, query)
  })
  const direction = query.sortDir === 'asc' ? 1 : -1
  const compare = (a: Position, b: Position): number =>
    (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * direction
  const positioned = selected
    .map((payment) => ({ payment, position: { key: sortKey(payment, query.sortBy), id: payment.id } }))
    .sort((a, b) => compare(a.position, b.position))
  const after = query.cursor === undefined ? undefined : decodeCursor(query, query.cursor)
  const remaining =
    after === undefined ? positioned : positioned.filter((entry) => compare(entry.position, after) > 0)
  const page = remaining.slice(0, query.limit)
  const last = page[page.length - 1]
  const nextCursor =
    remaining.length > query.limit && last !== undefined ? encodeCursor(query, last.position) : null
  return { page: page.map((entry) => entry.payment), nextCursor, selected }
}

function stats(selected: Payment[]) {
  const revenue = new Map<string, bigint>()
  const customers = new Set<string>()
  for (const payment of selected) {
    if (payment.chosen !== undefined) customers.add(payment.chosen.route.account)
    if (payment.status !== 'succeeded') continue
    const code = payment.amount.unit.slice('iso4217/'.length)
    revenue.set(code, (revenue.get(code) ?? 0n) + BigInt(payment.amount.value))
  }
  return {
    totalRevenue: [...revenue.entries()].map(([currency, minor]) => ({
      amount: toStandardUnit(currencyOf(`iso4217/${currency}`)!, minor),
      currency,
    })),
    totalTransactions: selected.length,
    totalCustomers: customers.size,
  }
}

/** The spec's list item. */
function listItem(state: SandboxState, payment: Payment): Record<string, unknown> {
  const merchant = state.merchants.get(payment.merchantId)
  const route = payment.chosen?.route
  const fee = state.fee(payment)
  const feeConfig = state.feeConfig
  const item: Record<string, unknown> = {
    paymentId: payment.id,
    merchant: { id: payment.merchantId, name: merchant?.name ?? '', iconUrl: merchant?.iconUrl ?? null },
    referenceId: payment.referenceId,
    status: listStatusOf(payment),
    isTerminal: state.isFinal(payment),
    fiatAmount: fiatDisplay(payment.amount),
  }
  if (route !== undefined) {
    item.tokenAmount = tokenAmountWithDisplay(route)
    item.buyer = { accountCaip10: route.account }
    item.transaction = {
      networkId: route.chainId.slice('eip155:'.length),
      ...(payment.chosen?.transactionHash === undefined ? {} : { hash: payment.chosen.transactionHash }),
    }
  }
  if (fee !== null && feeConfig !== null) {
    item.fees = {
      total: fiatDisplay(fee),
      fixed: fiatDisplay({ unit: payment.amount.unit, value: feeConfig.fixed }),
      percentage: feeConfig.percentage,
    }
  }
  if (payment.status === 'succeeded') {
    item.settlement =
      payment.settlement === undefined
        ? { settled: false }
        : { settled: true, amount: fiatDisplay(payment.settlement.amount), txHash: payment.settlement.txHash }
  }
  item.createdAt = iso(payment.createdAt)
  item.lastUpdatedAt = iso(payment.updatedAt)
  if (payment.settlement !== undefined) item.settledAt = iso(payment.settlement.settledAt)
  return item
}

export const listPayments: Route = {
  method: 'GET',
  path: '/v1/payments',
  auth: 'wallet',
  handle: (context: RequestContext) => {
    const query = parseListQuery(context.query)
    const { state } = context.sandbox
    const { page, nextCursor, selected } = listPage(state, query)
    return ok({ data: page.map((payment) => listItem(state, payment)), nextCursor, stats: stats(selected) })
  },
}
