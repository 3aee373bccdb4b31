import { base58 } from '@scure/base'
import * as v from 'valibot'
import { type Address, getAddress, isAddress } from 'viem'
import { checkCollected, collectDataObject, collectedDataSchema } from '../collectData.js'
import { type Route as HttpRoute, ok, type RequestContext } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
import type { HostileAction } from '../faults.js'
import { caip19Of, createRoute, resolveBuild, sandboxCollector, tokenFor } from '../gatewayOptions.js'
import { createLiveEvmRoute } from '../live/evmOption.js'
import type { Payment, Route } from '../model.js'
import {
  createSolanaRoute,
  resolveSolanaBuild,
  sandboxSolanaCollector,
  solanaAsset,
} from '../solanaOption.js'
import { fiatDisplay, tokenAmountWithDisplay } from '../state.js'
import { validateBody } from '../validate.js'
import { checkResult } from '../verifyResults.js'
import { statusJson } from './payments.js'

const caip10 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/

/** The payment for a gateway call: 404 unknown, 410 expired. */
function gatewayPayment(context: RequestContext): Payment {
  const payment = context.sandbox.state.payment(context.params.id!)
  if (payment.status === 'expired') {
    throw new PayHttpError(410, 'payment_expired', 'the payment expired', { details: { status: 'expired' } })
  }
  return payment
}

/**
 * Options, fetch and cancel need a payment still waiting for the buyer: otherwise 400 invalid_state (the official
 * client reads 422 as "invalid account" on options and "invalid signature" on confirm).
 */
function payablePayment(context: RequestContext): Payment {
  const payment = gatewayPayment(context)
  if (payment.status !== 'requires_action') {
    throw new PayHttpError(400, 'invalid_state', `the payment is ${payment.status}`, {
      details: { status: payment.status },
    })
  }
  return payment
}

/**
 * The option's route: an unknown option is 400 invalid_params (the official client's "invalid option" on
 * confirm); an expired route is 409 (the seed's "route expired") with code quote_expired: the option's quote,
 * whose `expiresAt` it carries, is stale and options must be fetched again.
 */
function liveRoute(context: RequestContext, payment: Payment, optionId: string): Route {
  const route = payment.routes.get(optionId)
  if (route === undefined) {
    throw new PayHttpError(400, 'invalid_params', `no option ${optionId} for this payment`, {
      issues: [{ field: 'optionId', message: 'not an option of this payment' }],
    })
  }
  if (route.forcedExpired || context.sandbox.state.now() >= route.expiresAt) {
    throw new PayHttpError(409, 'quote_expired', 'the option route expired; get options again', {
      details: { optionId },
    })
  }
  return route
}

/** The payment details a wallet shows (options with includePaymentInfo=true, and GET /v1/gateway/payment/{id}). */
function paymentInfo(context: RequestContext, payment: Payment) {
  const merchant = context.sandbox.state.merchants.get(payment.merchantId)
  return {
    status: payment.status,
    amount: fiatDisplay(payment.amount),
    expiresAt: Math.floor(payment.expiresAt / 1000),
    merchant: { name: merchant?.name ?? '', iconUrl: merchant?.iconUrl ?? null },
  }
}

const optionsBody = v.object({
  accounts: v.pipe(
    v.array(v.pipe(v.string(), v.regex(caip10, 'must be a CAIP-10 account id'))),
    v.minLength(1),
    v.maxLength(100),
  ),
  // The seed's flag (true: new routes for every account), or the official client's option ids to renew.
  refresh: v.nullish(v.union([v.boolean(), v.array(v.string())])),
})

function optionJson(context: RequestContext, payment: Payment, route: Route) {
  return {
    id: route.optionId,
    account: route.account,
    amount: tokenAmountWithDisplay(route),
    etaS: 5,
    expiresAt: Math.floor(route.expiresAt / 1000),
    actions: route.actions,
    collectData: payment.collectData ? collectDataObject(context.sandbox.baseUrl(), payment.id) : null,
  }
}

export const gatewayOptions: HttpRoute = {
  method: 'POST',
  path: '/v1/gateway/payment/:id/options',
  auth: 'wallet',
  handle: async (context) => {
    const payment = payablePayment(context)
    const body = validateBody(optionsBody, context.body ?? {})
    const includeInfo = context.query.get('includePaymentInfo')
    if (includeInfo !== null && includeInfo !== 'true' && includeInfo !== 'false') {
      throw badRequest('includePaymentInfo is true or false', [
        { field: 'includePaymentInfo', message: 'invalid' },
      ])
    }
    const { state, config } = context.sandbox
    const merchant = state.merchants.get(payment.merchantId)
    const now = state.now()
    const renew = (route: Route | undefined) =>
      route !== undefined &&
      (body.refresh === true || (Array.isArray(body.refresh) && body.refresh.includes(route.optionId)))
    const options = []
    for (const account of new Set(body.accounts)) {
      const [, namespace, reference, addressText] = caip10.exec(account)!
      if (namespace === 'solana') {
        const route = solanaRoute(context, payment, `${namespace}:${reference}`, addressText!, renew)
        if (route !== undefined) options.push(optionJson(context, payment, route))
        continue
      }
      if (namespace !== 'eip155' || !/^[1-9][0-9]{0,15}$/.test(reference!)) continue
      if (!isAddress(addressText!, { strict: false })) {
        throw badRequest(`${account} is not an EVM address`, [
          { field: 'accounts', message: `invalid ${account}` },
        ])
      }
      const chainId = `eip155:${reference}`
      const token = tokenFor(chainId, config.tokens, config.anyEvmChain)
      if (token === undefined) continue
      const address = getAddress(addressText!)
      const existing = [...payment.routes.values()].find(
        (route) => route.account === `${chainId}:${address}` && !route.forcedExpired && now < route.expiresAt,
      )
      let route = renew(existing) ? undefined : existing
      if (route === undefined) {
        const asset = caip19Of(chainId, token.address).toLowerCase()
        const destination = merchant?.settlements.find(
          (entry) => entry.asset.toLowerCase() === asset,
        )?.destination
        const payee =
          destination === undefined ? sandboxCollector : getAddress(destination.split(':')[2]! as Address)
        const live = context.sandbox.live
        // Live: the buyer pays the treasury, which settles the net amount to the destination afterwards.
        route =
          live === undefined
            ? createRoute({
                payment,
                account: `${chainId}:${address}`,
                chainId,
                address,
                token,
                payee,
                now,
                routeTtlMs: config.routeTtlMs,
                layout: config.actionLayout,
                ...hostileOf(context, payment, chainId, address, body.accounts),
              })
            : createLiveEvmRoute({
                payment,
                account: `${chainId}:${address}`,
                chainId,
                address,
                token,
                payee: live.treasury.evmAddress,
                now,
                routeTtlMs: config.routeTtlMs,
                sinceBlock: await live.blockNumber(chainId),
              })
        payment.routes.set(route.optionId, route)
      }
      options.push(optionJson(context, payment, route))
    }
    return ok({
      paymentId: payment.id,
      options,
      ...(includeInfo === 'true' ? { info: paymentInfo(context, payment) } : {}),
      collectData: payment.collectData ? collectDataObject(context.sandbox.baseUrl(), payment.id) : null,
    })
  },
}

/**
 * The fault mode's hostile gateway for a new EVM option of `address`: what its actions sign instead, with another
 * offered account of the chain to sign from (`account`).
 */
function hostileOf(
  context: RequestContext,
  payment: Payment,
  chainId: string,
  address: Address,
  accounts: readonly string[],
): { hostile?: { actions: readonly HostileAction[]; otherAddress: Address | undefined } } {
  const { faults } = context.sandbox
  if (!faults.active) return {}
  const actions = faults.hostile(payment.id, `for ${chainId}:${address}`)
  if (actions.length === 0) return {}
  const other = accounts
    .map((account) => caip10.exec(account))
    .find(
      (match) =>
        match !== null &&
        `${match[1]}:${match[2]}` === chainId &&
        isAddress(match[3]!, { strict: false }) &&
        getAddress(match[3]!) !== address,
    )?.[3]
  return { hostile: { actions, otherAddress: other === undefined ? undefined : getAddress(other) } }
}

/** The Solana option for `owner` on `chainId`, when the sandbox offers one there; reused until it expires. */
function solanaRoute(
  context: RequestContext,
  payment: Payment,
  chainId: string,
  owner: string,
  renew: (route: Route | undefined) => boolean,
): Route | undefined {
  const { state, config } = context.sandbox
  const option = config.solana
  if (option === null || chainId !== option.chainId) return undefined
  const payer = solanaKey(owner)
  if (payer === undefined) {
    throw badRequest(`${chainId}:${owner} is not a Solana address`, [
      { field: 'accounts', message: `invalid ${chainId}:${owner}` },
    ])
  }
  const now = state.now()
  const account = `${chainId}:${owner}`
  const existing = [...payment.routes.values()].find(
    (route) => route.account === account && !route.forcedExpired && now < route.expiresAt,
  )
  if (existing !== undefined && !renew(existing)) return existing
  const asset = solanaAsset(option)
  // Base58 is case-sensitive: the settlement entry must name the mint exactly.
  const destination = state.merchants
    .get(payment.merchantId)
    ?.settlements.find((entry) => entry.asset === asset)
    ?.destination.split(':')[2]
  // A registered destination that is not a Solana key leaves nothing to pay to: no option. Live: the treasury.
  const payee = context.sandbox.live?.treasury.solanaKey ?? solanaKey(destination ?? sandboxSolanaCollector)
  if (payee === undefined) return undefined
  const route = createSolanaRoute({ payment, option, payer, payee, now, routeTtlMs: config.routeTtlMs })
  payment.routes.set(route.optionId, route)
  return route
}

function solanaKey(text: string): Uint8Array | undefined {
  try {
    const key = base58.decode(text)
    return key.length === 32 ? key : undefined
  } catch {
    return undefined
  }
}

const fetchBody = v.object({ optionId: v.pipe(v.string(), v.minLength(1)), data: v.string() })

export const gatewayFetch: HttpRoute = {
  method: 'POST',
  path: '/v1/gateway/payment/:id/fetch',
  auth: 'wallet',
  handle: async (context) => {
    const payment = payablePayment(context)
    const body = validateBody(fetchBody, context.body)
    const route = liveRoute(context, payment, body.optionId)
    if (body.data !== route.buildData) {
      throw badRequest('data is not this option’s build action data', [
        { field: 'data', message: 'unknown build data' },
      ])
    }
    route.resolved =
      route.kind === 'solana'
        ? await resolveSolanaBuild(route)
        : resolveBuild(route, context.sandbox.config.actionLayout)
    return ok({ actions: route.resolved.actions })
  },
}

const confirmBody = v.object({
  optionId: v.pipe(v.string(), v.minLength(1)),
  results: v.pipe(v.array(v.unknown()), v.maxLength(20)),
  collectedData: v.nullish(collectedDataSchema),
})

const resultItem = v.object({
  type: v.literal('walletRpc'),
  data: v.strictTuple([v.pipe(v.string(), v.maxLength(4096))]),
})

const confirming = new WeakSet<Payment>()

export const gatewayConfirm: HttpRoute = {
  method: 'POST',
  path: '/v1/gateway/payment/:id/confirm',
  auth: 'wallet',
  handle: async (context) => {
    const { state, config, readers } = context.sandbox
    const maxPollMs = maxPollMsOf(context)
    const payment = gatewayPayment(context)
    const body = validateBody(confirmBody, context.body)
    if (payment.status === 'requires_action' && !confirming.has(payment)) {
      const route = liveRoute(context, payment, body.optionId)
      if (payment.collectData && payment.collected === undefined) {
        if (body.collectedData === undefined || body.collectedData === null) {
          throw badRequest('this payment needs collectedData (or the web-view form)', [
            { field: 'collectedData', message: 'required: the form was not submitted' },
          ])
        }
        payment.collected = checkCollected(body.collectedData.fields)
      }
      confirming.add(payment)
      try {
        const verdict = await checkResults(route, body.results, readers)
        if (payment.status === 'requires_action') {
          if (verdict.ok) {
            payment.chosen =
              verdict.transactionHash === undefined
                ? { route }
                : { route, transactionHash: verdict.transactionHash }
            state.transition(payment, 'processing')
            // Live: the chain decides (receipt and Transfer logs, bounded); test mode: a timer.
            if (context.sandbox.live !== undefined) context.sandbox.live.verify(payment)
            else if (config.processingMs !== null) {
              state.after(config.processingMs, () => {
                if (payment.status === 'processing') state.transition(payment, 'succeeded')
              })
            }
          } else {
            payment.chosen = { route }
            state.transition(payment, 'failed', { reason: verdict.reason })
          }
        }
      } finally {
        confirming.delete(payment)
      }
    }
    await longPoll(context, payment, maxPollMs)
    return ok(gatewayStatusJson(context, payment))
  },
}

/** `?maxPollMs=` (confirm and status): 0 to the sandbox's maximum; absent is 0 (answer at once). */
function maxPollMsOf(context: RequestContext): number {
  const text = context.query.get('maxPollMs')
  if (text === null) return 0
  const { maxLongPollMs } = context.sandbox.config
  if (!/^[0-9]{1,7}$/.test(text) || Number(text) > maxLongPollMs) {
    throw badRequest(`maxPollMs is a whole number from 0 to ${maxLongPollMs}`, [
      { field: 'maxPollMs', message: 'invalid' },
    ])
  }
  return Number(text)
}

/** Server-side long polling: holds the reply until the payment's state changes or `maxPollMs` runs out. */
async function longPoll(context: RequestContext, payment: Payment, maxPollMs: number): Promise<void> {
  const { state, faults } = context.sandbox
  if (state.isFinal(payment)) return
  if (faults.holdLongPoll(payment.id, maxPollMs)) await state.hold(maxPollMs)
  else await state.waitForChange(payment, payment.stateVersion, maxPollMs)
}

/**
 * The gateway's status body (confirm and status): the general status body, except that `info` is null until an
 * option was confirmed (and in live mode until its transaction is known) and `optionAmount` carries `display`:
 * the official client requires `info.txId` and `info.optionAmount.display` whenever `info` is present.
 */
function gatewayStatusJson(context: RequestContext, payment: Payment) {
  const route = payment.chosen?.route
  const txId = context.sandbox.state.txId(payment)
  return {
    ...statusJson(context, payment),
    info: route === undefined || txId === null ? null : { txId, optionAmount: tokenAmountWithDisplay(route) },
  }
}

async function checkResults(
  route: Route,
  results: unknown[],
  readers: Parameters<typeof checkResult>[2],
): Promise<{ ok: true; transactionHash?: string } | { ok: false; reason: string }> {
  if (route.resolved === undefined)
    return { ok: false, reason: 'the option’s build action was never fetched' }
  const { expected } = route.resolved
  if (results.length !== expected.length) {
    return {
      ok: false,
      reason: `results do not match actions: ${results.length} results for ${expected.length} actions`,
    }
  }
  let transactionHash: string | undefined
  for (const [index, item] of results.entries()) {
    const parsed = v.safeParse(resultItem, item)
    if (!parsed.success)
      return { ok: false, reason: `result ${index} is not {type:'walletRpc', data:[string]}` }
    const check = await checkResult(expected[index]!, parsed.output.data[0], readers)
    if (!check.ok) return { ok: false, reason: `result ${index}: ${check.reason}` }
    transactionHash ??= check.transactionHash
  }
  return transactionHash === undefined ? { ok: true } : { ok: true, transactionHash }
}

export const gatewayPaymentInfo: HttpRoute = {
  method: 'GET',
  path: '/v1/gateway/payment/:id',
  auth: 'wallet',
  handle: (context) => {
    const payment = context.sandbox.state.payment(context.params.id!)
    return ok({ paymentId: payment.id, ...paymentInfo(context, payment) })
  },
}

export const gatewayStatus: HttpRoute = {
  method: 'GET',
  path: '/v1/gateway/payment/:id/status',
  auth: 'wallet',
  handle: async (context) => {
    const maxPollMs = maxPollMsOf(context)
    const payment = context.sandbox.state.payment(context.params.id!)
    await longPoll(context, payment, maxPollMs)
    return ok(gatewayStatusJson(context, payment))
  },
}

export const gatewayCancel: HttpRoute = {
  method: 'POST',
  path: '/v1/gateway/payment/:id/cancel',
  auth: 'wallet',
  handle: (context) => {
    const payment = payablePayment(context)
    context.sandbox.state.transition(payment, 'cancelled', { reason: 'cancelled by the buyer' })
    return ok(gatewayStatusJson(context, payment))
  },
}
