import * as v from 'valibot'
import { InternalError, InvalidParamsError } from '../../core/errors.js'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { originOf } from '../../core/origin.js'
import { item, quoted, type ReviewDraft, type ReviewWarning } from '../../core/review.js'
import { originVerificationWarnings } from '../../core/signIn.js'
import { parseAuthority } from '../../core/uri.js'
import type { TonWallet } from '../context.js'
import type { WalletContract } from '../contracts.js'
import { checkFrom, oneObject } from '../params.js'
import { tonProofDigest } from '../tonProof.js'

/** Longest payload accepted: TON Connect backends send a nonce (tonapi: 64 hex characters). */
export const maxTonProofPayloadLength = 2048

/**
 * `{ domain, payload, from? }`: what @tonconnect/sdk's `ton_proof` connect item asks for. Not a method of TON's
 * WalletConnect RPC: the WalletKit adapter reaches it from a session proposal's `authentication` entry with
 * `uri: 'ton_proof'` (the SDK's WalletConnect connector puts it there); a session that lists it may call it
 * with the same review and rules.
 */
export const tonProofParams = oneObject(
  v.looseObject({
    domain: v.pipe(v.string(), v.minLength(1, 'must name the app domain'), v.maxLength(253)),
    payload: v.pipe(v.string(), v.maxLength(maxTonProofPayloadLength)),
    from: v.optional(v.string()),
  }),
)

export type TonProofParams = v.InferOutput<typeof tonProofParams>

/** The `ton_proof` connect item's `proof`, plus the raw address it proves. */
export type TonProofResult = {
  /** Raw wallet address `0:<hex>`. */
  address: string
  proof: {
    /** Unix seconds, from the wallet's clock. */
    timestamp: number
    domain: { lengthBytes: number; value: string }
    payload: string
    /** Base64 Ed25519 signature. */
    signature: string
  }
}

type TonProofPlan = { domain: string; payload: string }

/** Warning-code prefix of ton_proof's checks (`ton_proof.domain_mismatch`, …). */
export const tonProofWarningPrefix = 'ton_proof'

/**
 * The domain must be the requesting site's host: a proof for another domain would log the user in there. The
 * SDK sends the hostname (no port), so the port is compared only when the domain names one.
 */
function domainWarnings(context: RequestContext, domain: string): ReviewWarning[] {
  const warnings = originVerificationWarnings(context, tonProofWarningPrefix, domain)
  const danger = (rule: string, message: string) =>
    warnings.push({ code: `${tonProofWarningPrefix}.${rule}`, severity: 'danger', message })
  const origin = originOf(context.origin)
  const claimed = parseAuthority(domain)
  if (origin === undefined) {
    danger(
      'origin_missing',
      `The request carries no web origin, so the wallet cannot check that ${quoted(domain)} is asking.`,
    )
  } else if (claimed === undefined || claimed.userinfo !== undefined) {
    danger('domain_invalid', `${quoted(domain)} is not a plain host name.`)
  } else if (claimed.host !== origin.host) {
    danger(
      'domain_mismatch',
      `This proof is for ${quoted(domain)}, but ${origin.text} asks: it would sign you in to another site.`,
    )
  } else if (claimed.port !== undefined && BigInt(claimed.port || '0').toString() !== origin.port) {
    danger('domain_mismatch', `This proof names port ${claimed.port}, but ${origin.text} asks.`)
  }
  return warnings
}

function planProof(context: RequestContext, params: TonProofParams, contract: WalletContract) {
  checkFrom(params.from, contract.address)
  // A line break or escape in the payload could make the review show something else than what is signed.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(params.payload)) {
    throw new InvalidParamsError('must not contain control characters', { path: 'payload' })
  }
  const account = contract.account(context.chainId)
  const review: ReviewDraft = {
    account,
    title: `Prove to ${params.domain} that you own this wallet`,
    items: [item('Domain', params.domain), item('Payload', params.payload), item('Account', account)],
    warnings: domainWarnings(context, params.domain),
  }
  return { review, plan: { domain: params.domain, payload: params.payload } satisfies TonProofPlan }
}

function result(contract: WalletContract, signature: Uint8Array, timestamp: number, plan: TonProofPlan) {
  return {
    address: contract.rawAddress,
    proof: {
      timestamp,
      domain: { lengthBytes: new TextEncoder().encode(plan.domain).length, value: plan.domain },
      payload: plan.payload,
      signature: Buffer.from(signature).toString('base64'),
    },
  } satisfies TonProofResult
}

export const ton_proof = (wallet: TonWallet) =>
  defineMethod({
    params: tonProofParams,

    async plan(context, params) {
      return planProof(context, params, await wallet.contract())
    },

    async execute(context, plan: TonProofPlan): Promise<TonProofResult> {
      const contract = await wallet.contract()
      const timestamp = Math.floor(context.clock() / 1000)
      if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
        throw new InternalError({ details: 'the wallet clock is not a valid Unix time' })
      }
      const digest = tonProofDigest({ address: contract.address, timestamp, ...plan })
      return result(contract, await wallet.sign(digest), timestamp, plan)
    },
  })
