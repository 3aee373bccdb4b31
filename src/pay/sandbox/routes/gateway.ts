import { base58 } from '@scure/base'
import * as v from 'valibot'
import { type Address, getAddress, isAddress } from 'viem'
import { checkCollected, collectDataObject, collectedDataSchema } from '../collectData.js'
import { type Route as HttpRoute, ok, type RequestContext } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
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

/** Options and fetch need a payment still waiting for the buyer. */
function payablePayment(context: RequestContext): Payment {
  const payment = gatewayPayment(context)
  if (payment.status !== 'requires_action') {
    throw new PayHttpError(422, 'payment_not_payable', `the payment is ${payment.status}`, {
      details: { status: payment.status },
    })
  }
  return payment
}

/** The option's route: 404 unknown option, 409 route expired. */
function liveRoute(context: RequestContext, payment: Payment, optionId: string): Route {
  const route = payment.routes.get(optionId)
  if (route === undefined)
    throw new PayHttpError(404, 'option_not_found', `no option ${optionId} for this payment`)
  if (route.forcedExpired || context.sandbox.state.now() >= route.expiresAt) {
    throw new PayHttpError(409, 'route_expired', 'the option route expired; get options again', {
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
  refresh: v.optional(v.boolean()),
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
    const options = []
    for (const account of new Set(body.accounts)) {
      const [, namespace, reference, addressText] = caip10.exec(account)!
      if (namespace === 'solana') {
        const route = solanaRoute(
          context,
          payment,
          `${namespace}:${reference}`,
          addressText!,
          body.refresh === true,
        )
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
      let route = body.refresh === true ? undefined : existing
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

/** The Solana option for `owner` on `chainId`, when the sandbox offers one there; reused until it expires. */
function solanaRoute(
  context: RequestContext,
  payment: Payment,
  chainId: string,
  owner: string,
  refresh: boolean,
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
  if (existing !== undefined && !refresh) return existing
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
  collectedData: v.optional(collectedDataSchema),
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
    const maxPollText = context.query.get('maxPollMs')
    let maxPollMs = 0
    if (maxPollText !== null) {
      if (!/^[0-9]{1,7}$/.test(maxPollText) || Number(maxPollText) > config.maxLongPollMs) {
        throw badRequest(`maxPollMs is a whole number from 0 to ${config.maxLongPollMs}`, [
          { field: 'maxPollMs', message: 'invalid' },
        ])
      }
      maxPollMs = Number(maxPollText)
    }
    const payment = gatewayPayment(context)
    const body = validateBody(confirmBody, context.body)
    if (payment.status === 'requires_action' && !confirming.has(payment)) {
      const route = liveRoute(context, payment, body.optionId)
      if (payment.collectData && payment.collected === undefined) {
        if (body.collectedData === undefined) {
          throw new PayHttpError(
            400,
            'collect_data_required',
            'this payment needs collectedData (or the web-view form)',
          )
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
    if (!state.isFinal(payment)) {
      if (context.sandbox.faults.holdLongPoll(payment.id, maxPollMs)) await state.hold(maxPollMs)
      else await state.waitForChange(payment, payment.stateVersion, maxPollMs)
    }
    return ok(statusJson(context, payment))
  },
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
  handle: (context) => ok(statusJson(context, context.sandbox.state.payment(context.params.id!))),
}

export const gatewayCancel: HttpRoute = {
  method: 'POST',
  path: '/v1/gateway/payment/:id/cancel',
  auth: 'wallet',
  handle: (context) => {
    const payment = payablePayment(context)
    context.sandbox.state.transition(payment, 'cancelled', { reason: 'cancelled by the buyer' })
    return ok(statusJson(context, payment))
  },
}
