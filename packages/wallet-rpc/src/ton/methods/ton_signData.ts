import * as v from 'valibot'
import { InternalError, PolicyRefusedError } from '../../core/errors.js'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { originOf } from '../../core/origin.js'
import { item, quoted, type ReviewDraft, type ReviewWarning } from '../../core/review.js'
import { originVerificationWarnings } from '../../core/signIn.js'
import { parseAuthority } from '../../core/uri.js'
import type { TonWallet } from '../context.js'
import type { WalletContract } from '../contracts.js'
import { checkFrom, checkNetwork, networkField, oneObject, parseBoc } from '../params.js'
import { type SignDataPayload, signDataDigest } from '../signData.js'

const common = { from: v.optional(v.string()), network: networkField }

const textPayload = v.looseObject({ type: v.literal('text'), text: v.string(), ...common })
const binaryPayload = v.looseObject({
  type: v.literal('binary'),
  bytes: v.pipe(
    v.string(),
    v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be standard base64'),
  ),
  ...common,
})
const cellPayload = v.looseObject({
  type: v.literal('cell'),
  schema: v.pipe(v.string(), v.minLength(1, 'must name the TL-B schema')),
  cell: v.string(),
  ...common,
})
const anyPayload = v.variant('type', [textPayload, binaryPayload, cellPayload])
const byType = new Map<unknown, v.GenericSchema<unknown, v.InferOutput<typeof anyPayload>>>([
  ['text', textPayload],
  ['binary', binaryPayload],
  ['cell', cellPayload],
])

/**
 * `{type:'text', text}`, `{type:'binary', bytes}` or `{type:'cell', schema, cell}`, plus optional `from`
 * and `network`, as one object or `[object]`. Unknown keys are tolerated and echoed, never signed.
 */
export const tonSignDataParams = oneObject(
  // The variant's own dispatch searches every option on each parse; the type names the schema directly, and
  // anything else goes through the variant for its error message.
  v.lazy(
    (input) =>
      (typeof input === 'object' && input !== null && byType.get((input as { type?: unknown }).type)) ||
      anyPayload,
  ),
)

export type TonSignDataParams = v.InferOutput<typeof tonSignDataParams>

export type TonSignDataResult = {
  /** Base64 Ed25519 signature. */
  signature: string
  /** Raw wallet address `0:<hex>`. */
  address: string
  /** Unix seconds, from the wallet's clock. */
  timestamp: number
  /** Host of the request's verified origin. */
  domain: string
  /** The request payload, echoed. */
  payload: TonSignDataParams
  /** Hex Ed25519 public key (the variant one WalletConnect doc shows; verifiers need no chain lookup). */
  publicKey: string
}

type SignDataPlan = { payload: SignDataPayload; domain: string; echo: TonSignDataParams }

/**
 * The domain the signature binds to: the host (with port, as TON Connect WalletKit does) of the origin the
 * transport verified. A dapp-declared domain is never used, and a request with no origin is refused: a
 * signature bound to nothing could be replayed to any site.
 */
function signDataDomain(context: RequestContext): string {
  if (context.origin === undefined) {
    throw new PolicyRefusedError('ton_signData needs the request origin to bind the signature to', {
      rule: 'ton.sign_data.no_origin',
    })
  }
  if (context.origin === lastOrigin.origin) return lastOrigin.host
  // No userinfo, a host, and a web scheme's default port dropped (`https://example.org:443` binds `example.org`).
  const origin = originOf(context.origin)
  const host = origin === undefined ? '' : new URL(origin.text).host
  if (host === '') {
    throw new PolicyRefusedError('the request origin has no host to bind the signature to', {
      rule: 'ton.sign_data.bad_origin',
    })
  }
  lastOrigin = { origin: context.origin, host }
  return host
}

// A session talks to one dapp: its origin is parsed once, not on every request.
let lastOrigin = { origin: '', host: '' }

/** Warning-code prefix of ton_signData's checks (`ton.sign_data.origin_unverified`, …). */
const warningPrefix = 'ton.sign_data'

/**
 * The binding's own checks: the transport's verdict on the origin (shared with every sign-in: unverified is a
 * caution, INVALID a danger), and a `domain` the dapp put in the params (not part of TON Connect, never
 * signed) that names another host than the one the signature binds to: a dapp saying it is one site while
 * it runs on another is a danger.
 */
function bindingWarnings(
  context: RequestContext,
  params: TonSignDataParams,
  domain: string,
): ReviewWarning[] {
  const warnings = originVerificationWarnings(context, warningPrefix, domain)
  const declared = (params as { domain?: unknown }).domain
  if (declared !== undefined && !sameHost(declared, domain)) {
    warnings.push({
      code: `${warningPrefix}.domain_mismatch`,
      severity: 'danger',
      message: `The app says it is ${typeof declared === 'string' ? quoted(declared) : 'a non-string domain'}, but the request comes from ${domain}; the signature would be bound to ${domain}.`,
    })
  }
  return warnings
}

function sameHost(declared: unknown, domain: string): boolean {
  if (typeof declared !== 'string') return false
  const claimed = parseAuthority(declared)
  const bound = parseAuthority(domain)
  return (
    claimed !== undefined &&
    bound !== undefined &&
    claimed.userinfo === undefined &&
    claimed.host === bound.host &&
    (claimed.port ?? '') === (bound.port ?? '')
  )
}

function decode(params: TonSignDataParams): SignDataPayload {
  switch (params.type) {
    case 'text':
      return { type: 'text', text: params.text }
    case 'binary':
      return { type: 'binary', bytes: new Uint8Array(Buffer.from(params.bytes, 'base64')) }
    case 'cell':
      return { type: 'cell', schema: params.schema, cell: parseBoc(params.cell, 'cell') }
  }
}

function reviewSignData(
  account: string,
  domain: string,
  payload: SignDataPayload,
  warnings: ReviewWarning[],
): ReviewDraft {
  const items = [item('Domain', domain), item('Type', payload.type)]
  if (payload.type === 'text') {
    items.push(item('Text', payload.text))
  } else if (payload.type === 'binary') {
    items.push(item('Bytes (base64)', Buffer.from(payload.bytes).toString('base64')))
    warnings.push({
      code: 'ton.sign_data.binary',
      severity: 'caution',
      message: 'The app asks you to sign bytes the wallet cannot show as text. Sign only if you trust it.',
    })
  } else {
    items.push(item('Schema (TL-B)', payload.schema), item('Cell hash', payload.cell.hash().toString('hex')))
    warnings.push({
      code: 'ton.sign_data.cell',
      severity: 'caution',
      message:
        'The app asks you to sign a cell the wallet does not decode; a contract may act on this signature.',
    })
  }
  return { account, title: `Sign data for ${domain}`, items, warnings }
}

function planSignData(context: RequestContext, params: TonSignDataParams, contract: WalletContract) {
  checkNetwork(context, params.network)
  checkFrom(params.from, contract.address)
  const domain = signDataDomain(context)
  const payload = decode(params)
  const plan: SignDataPlan = { payload, domain, echo: params }
  const warnings = bindingWarnings(context, params, domain)
  return { review: reviewSignData(contract.account(context.chainId), domain, payload, warnings), plan }
}

// The node:crypto backend signs into a Buffer already; wrapping it in another cost about what encoding it does.
function base64(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return buffer.toString('base64')
}

function result(
  contract: WalletContract,
  signature: Uint8Array,
  timestamp: number,
  plan: SignDataPlan,
): TonSignDataResult {
  return {
    signature: base64(signature),
    address: contract.rawAddress,
    timestamp,
    domain: plan.domain,
    payload: plan.echo,
    publicKey: contract.publicKeyHex,
  }
}

// plan and execute stay synchronous once the key is ready: signData is the hot path the benchmark holds
// to 1.5x one raw signature, and every avoided promise counts there.
export const ton_signData = (wallet: TonWallet) =>
  defineMethod({
    params: tonSignDataParams,

    plan(context, params) {
      const contract = wallet.readyContract()
      if (contract !== undefined) return planSignData(context, params, contract)
      return wallet.contract().then((ready) => planSignData(context, params, ready))
    },

    execute(context, plan: SignDataPlan): TonSignDataResult | Promise<TonSignDataResult> {
      const contract = wallet.readyContract()
      if (contract === undefined)
        throw new InternalError({ details: 'the ton key is not ready after planning' })
      const timestamp = Math.floor(context.clock() / 1000)
      if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
        throw new InternalError({ details: 'the wallet clock is not a valid Unix time' })
      }
      const digest = signDataDigest({
        payload: plan.payload,
        address: contract.address,
        domain: plan.domain,
        timestamp,
      })
      const signature = wallet.sign(digest)
      return signature instanceof Uint8Array
        ? result(contract, signature, timestamp, plan)
        : signature.then((signed) => result(contract, signed, timestamp, plan))
    },
  })
