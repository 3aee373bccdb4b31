import { base58 } from '@scure/base'
import type { AuthTypes, SessionTypes } from '@walletconnect/types'
import { buildAuthObject, formatMessage } from '@walletconnect/utils'
import { domainMismatch, originOf } from '../../core/origin.js'
import { decodeRecap, isRecap, type RecapCapability, recapWarnings } from '../../core/recap.js'
import { type OriginValidation, quoted, type ReviewWarning } from '../../core/review.js'
import { issuedInFutureWarning } from '../../core/signIn.js'
import { printableLine } from '../../core/text.js'
import { parseAuthority, parseUri } from '../../core/uri.js'
import type { WalletRpcLike } from '../walletRpcLike.js'
import { type AuthenticationRequest, parseAuthentication } from './parseAuthentication.js'

/** What one signature in answer to a connect-time sign-in would prove. */
export type AuthenticationProof = {
  chainId: string
  /** The CAIP-10 account that signs (one the session approves). */
  account: string
  /** `caip122`: a Sign-In with Ethereum / Solana message (EIP-191 or Ed25519); `ton_proof`: TON Connect's proof. */
  kind: 'caip122' | 'ton_proof'
  /** The exact text signed (caip122), or what the proof binds (ton_proof: domain and payload). */
  message: string
}

/** One `requests.authentication` entry as the connect review shows it. */
export type AuthenticationReview = {
  index: number
  domain: string | undefined
  statement: string | undefined
  /** The chains the dapp named. */
  chains: readonly string[]
  /** What its ReCap resources (EIP-5573) grant the site, each flagged in `warnings` (`*.recap_rpc_methods`, `*.recap`). */
  capabilities: RecapCapability[]
  /** What approving signs: one proof per named chain the session includes and the wallet can sign in on. */
  proofs: AuthenticationProof[]
  /** Named chains answered with nothing, and why. */
  notOffered: { chainId: string; reason: string }[]
  /**
   * The sign-in rules at connect: the domain against the proposer's origin, the origin's verification. Each
   * `danger` is refused when signing unless the wallet's `policy.allowDangerous` lists its code (the same codes
   * the signing method uses: `siwe.*`, `siws.*`, `ton_proof.*`).
   */
  warnings: ReviewWarning[]
  /** Why nothing at all is signed for this entry (malformed, expired, no chain served). */
  refused: string | undefined
}

/** Where the proposal came from: the Verify API's origin, else the dapp's declared metadata URL. */
export type ProposerOrigin = { origin: string | undefined; validation: OriginValidation | undefined }

/** A planned signature: the request the wallet's own method path answers, and the CACAO built from its result. */
export type AuthenticationStep = {
  index: number
  chainId: string
  method: string
  params: unknown
  /**
   * The connect-time sign-in rules' warnings, handed to the signing method's review (`HandleInput.warnings`):
   * each `danger` is refused there unless `policy.allowDangerous` lists its code.
   */
  warnings: ReviewWarning[]
  toCacao: (result: unknown) => AuthTypes.Cacao | undefined
}

// Sign In With Solana names its cluster, not the genesis hash (github.com/phantom/sign-in-with-solana ABNF).
const solanaClusters: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'mainnet',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'testnet',
  localnet: 'localnet',
}

/** The CAIP-122 message text a CACAO signs: `formatMessage`, with Solana's cluster name as its Chain ID. */
export function caip122Message(payload: AuthTypes.FormatMessageParams, iss: string): string {
  const [, , namespace, reference, address] = iss.split(':')
  if (namespace === 'solana') {
    const cluster = solanaClusters[reference ?? '']
    if (cluster === undefined) throw new Error(`no Sign In With Solana chain id for ${reference}`)
    return formatMessage(payload, `did:pkh:solana:${cluster}:${address}`)
  }
  return formatMessage(payload, iss)
}

const signingMethods: Readonly<Record<string, string>> = {
  eip155: 'personal_sign',
  solana: 'solana_signMessage',
  ton: 'ton_proof',
}
const warningPrefixes: Readonly<Record<string, string>> = { eip155: 'siwe', solana: 'siws', ton: 'ton_proof' }

/**
 * The review and the signing plan of every authentication entry of a proposal. Never throws: an entry that
 * cannot be answered says why in `refused` / `notOffered`.
 */
export function planAuthentication(
  entries: unknown,
  namespaces: SessionTypes.Namespaces,
  supported: ReturnType<WalletRpcLike['supported']>,
  proposer: ProposerOrigin,
  now: number,
): { reviews: AuthenticationReview[]; steps: AuthenticationStep[] } {
  const reviews: AuthenticationReview[] = []
  const steps: AuthenticationStep[] = []
  if (entries === undefined) return { reviews, steps }
  const list = Array.isArray(entries) ? entries.slice(0, 8) : [entries]
  for (const [index, entry] of list.entries()) {
    const parsed = parseAuthentication(entry, now)
    if (!parsed.ok) {
      reviews.push(refusedReview(index, entry, parsed.reason))
      continue
    }
    const request = parsed.request
    const review: AuthenticationReview = {
      index,
      domain: request.domain,
      statement: request.statement,
      chains: request.chains,
      capabilities: (request.resources ?? []).flatMap((resource) => {
        if (!isRecap(resource)) return []
        const decoded = decodeRecap(resource)
        return decoded.ok ? decoded.recap.capabilities : []
      }),
      proofs: [],
      notOffered: [],
      warnings: [],
      refused: undefined,
    }
    for (const chainId of new Set(request.chains)) {
      const offer = offerFor(request, chainId, namespaces, supported)
      if ('reason' in offer) {
        review.notOffered.push({ chainId, reason: offer.reason })
        continue
      }
      let step: ReturnType<typeof stepFor>
      try {
        step = stepFor(request, index, chainId, offer.address)
      } catch (error) {
        // WalletConnect's formatter refuses what would forge a field (a ReCap statement with a line break).
        review.notOffered.push({
          chainId,
          reason: `the message cannot be built: ${(error as Error).message}`,
        })
        continue
      }
      const warnings = connectWarnings(request, proposer, warningPrefixes[offer.namespace]!, now)
      review.proofs.push(step.proof)
      steps.push({ ...step.step, warnings })
      for (const warning of warnings) {
        // Each chain's step gets the same warnings: shown once (two ReCaps share a code, not a message).
        if (
          !review.warnings.some((known) => known.code === warning.code && known.message === warning.message)
        )
          review.warnings.push(warning)
      }
    }
    if (review.proofs.length === 0) {
      review.refused = 'none of its chains is one this session includes and the wallet can sign in on'
    }
    reviews.push(review)
  }
  return { reviews, steps }
}

function refusedReview(index: number, entry: unknown, reason: string): AuthenticationReview {
  let domain: string | undefined
  let statement: string | undefined
  try {
    const record = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {}
    // Shown beside the reason: one bounded line, anything hidden written out.
    const text = (field: string) =>
      Object.hasOwn(record, field) && typeof record[field] === 'string'
        ? printableLine(record[field] as string, 256)
        : undefined
    domain = text('domain')
    statement = text('statement')
  } catch {
    // A getter or a Proxy that throws when read again: the reason alone is shown.
  }
  return {
    index,
    domain,
    statement,
    chains: [],
    capabilities: [],
    proofs: [],
    notOffered: [],
    warnings: [],
    refused: reason,
  }
}

function offerFor(
  request: AuthenticationRequest,
  chainId: string,
  namespaces: SessionTypes.Namespaces,
  supported: ReturnType<WalletRpcLike['supported']>,
): { namespace: string; address: string } | { reason: string } {
  const namespace = chainId.split(':')[0]!
  if (request.tonProof !== (namespace === 'ton')) {
    return {
      reason: request.tonProof
        ? 'ton_proof is a TON proof; it signs nothing on other chains'
        : 'TON signs in only with ton_proof',
    }
  }
  const method = Object.hasOwn(signingMethods, namespace) ? signingMethods[namespace] : undefined
  if (method === undefined) {
    return {
      reason: `no sign-in offered on ${namespace}: WalletConnect's CACAO verifier checks only EIP-191 and EIP-1271 signatures`,
    }
  }
  if (!supported.some((entry) => entry.name === namespace && entry.methods.includes(method))) {
    return { reason: `the wallet does not serve ${method}` }
  }
  const approved = Object.hasOwn(namespaces, namespace) ? namespaces[namespace] : undefined
  const account = approved?.accounts.find((entry) => entry.startsWith(`${chainId}:`))
  if (account === undefined) return { reason: `the session does not include ${chainId}` }
  return { namespace, address: account.slice(chainId.length + 1) }
}

function payloadOf(request: AuthenticationRequest): AuthTypes.PayloadParams {
  return {
    type: 'caip122',
    domain: request.domain,
    aud: request.aud,
    version: request.version,
    nonce: request.nonce,
    iat: request.iat,
    ...(request.exp === undefined ? {} : { exp: request.exp }),
    ...(request.nbf === undefined ? {} : { nbf: request.nbf }),
    ...(request.statement === undefined ? {} : { statement: request.statement }),
    ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
    ...(request.resources === undefined ? {} : { resources: request.resources }),
  } as AuthTypes.PayloadParams
}

function stepFor(
  request: AuthenticationRequest,
  index: number,
  chainId: string,
  address: string,
): { proof: AuthenticationProof; step: Omit<AuthenticationStep, 'warnings'> } {
  const iss = `did:pkh:${chainId}:${address}`
  const account = `${chainId}:${address}`
  if (request.tonProof) {
    const payload = request.statement ?? ''
    return {
      proof: { chainId, account, kind: 'ton_proof', message: `${request.domain} · ${payload}` },
      step: {
        index,
        chainId,
        method: 'ton_proof',
        params: { domain: request.domain, payload },
        toCacao: (result) => tonProofCacao(request, iss, result),
      },
    }
  }
  const payload = payloadOf(request)
  const message = caip122Message(payload, iss)
  const namespace = chainId.split(':')[0]
  const bytes = new TextEncoder().encode(message)
  const signatureType = namespace === 'solana' ? 'solana:ed25519' : 'eip191'
  return {
    proof: { chainId, account, kind: 'caip122', message },
    step: {
      index,
      chainId,
      method: signingMethods[namespace!]!,
      params:
        namespace === 'solana'
          ? { message: base58.encode(bytes), pubkey: address }
          : [`0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`, address],
      toCacao: (result) => {
        const signature =
          namespace === 'solana' ? (result as { signature?: unknown } | null)?.signature : result
        if (typeof signature !== 'string') return undefined
        // WalletConnect's type names only EVM signature types; CAIP-122's Solana profile is `solana:ed25519`.
        const cacaoSignature = { t: signatureType, s: signature } as AuthTypes.CacaoSignature
        return buildAuthObject(payload, cacaoSignature, iss)
      },
    },
  }
}

/**
 * The CACAO @tonconnect/sdk's WalletConnect connector reads back (`buildTonProof`): `p.iat` is the proof's
 * timestamp, `p.domain` its domain, `p.statement` its payload, `s.s` the base64 signature.
 */
function tonProofCacao(
  request: AuthenticationRequest,
  iss: string,
  result: unknown,
): AuthTypes.Cacao | undefined {
  const proof = (result as { proof?: Record<string, unknown> } | null)?.proof
  if (typeof proof?.signature !== 'string' || typeof proof.timestamp !== 'number') return undefined
  return {
    h: { t: 'caip122' },
    p: {
      iss,
      domain: request.domain,
      aud: 'ton_proof',
      version: '1',
      nonce: request.nonce,
      iat: new Date(proof.timestamp * 1000).toISOString(),
      statement: String(proof.payload),
    },
    s: { t: 'ton_proof', s: proof.signature } as unknown as AuthTypes.CacaoSignature,
  }
}

/**
 * The sign-in rules at connect, before the user decides: the domain (and the message URI) must be the
 * proposer's origin, and that origin must be one the Verify API confirmed (`VALID`). Every breach is a
 * `danger`, stricter than a dapp's later sign-in request (where an unverified origin is a caution): a proof
 * signed at connect goes out with the session itself, before the user has seen the site do anything, and with
 * Verify unreachable the origin is only the dapp's own claim. The signing method gets these warnings too
 * (`AuthenticationStep.warnings`) and checks its own rules again.
 */
function connectWarnings(
  request: AuthenticationRequest,
  proposer: ProposerOrigin,
  prefix: string,
  now: number,
): ReviewWarning[] {
  const warnings: ReviewWarning[] = []
  const danger = (rule: string, message: string) =>
    warnings.push({ code: `${prefix}.${rule}`, severity: 'danger', message })
  if (!request.tonProof) {
    // A ton_proof carries the wallet's own timestamp and no resources; a sign-in message carries both.
    const future = issuedInFutureWarning(prefix, request.iat, now)
    if (future !== undefined) warnings.push(future)
    warnings.push(...recapWarnings(request.resources ?? [], prefix, request.aud))
  }
  if (proposer.validation === 'INVALID') {
    danger(
      'origin_invalid',
      `The Verify API says this proposal does not come from the dapp's verified domain; do not prove ${quoted(request.domain)}.`,
    )
  } else if (proposer.validation !== 'VALID') {
    danger(
      'origin_unverified',
      `The Verify API did not confirm that this proposal comes from ${quoted(request.domain)} (${proposer.validation ?? 'no verdict'}): the domain is only what the dapp claims.`,
    )
  }
  const origin = originOf(proposer.origin)
  if (origin === undefined) {
    danger('origin_missing', `The proposal carries no web origin to check ${quoted(request.domain)} against.`)
    return warnings
  }
  if (request.tonProof) {
    // The SDK sends the hostname only; a port, when named, must be the site's.
    const claimed = parseAuthority(request.domain)
    if (claimed?.host !== origin.host || (claimed.port !== undefined && claimed.port !== origin.port)) {
      danger('domain_mismatch', `This proof is for ${quoted(request.domain)}, but ${origin.text} asks.`)
    }
    return warnings
  }
  const problem = domainMismatch(undefined, request.domain, origin)
  if (problem !== undefined) {
    danger(
      'domain_mismatch',
      `This sign-in is for ${quoted(request.domain)}, but ${origin.text} asks: ${problem}.`,
    )
  }
  const uriHost = parseUri(request.aud)?.authority?.host
  if (uriHost !== origin.host) {
    danger('uri_mismatch', `The sign-in URI ${quoted(request.aud)} is not on ${origin.host}.`)
  }
  return warnings
}
