// CAIP-122 CACAOs (Sign-In with X), as WalletConnect's one-click auth answers them in `session.authentication`:
// the message rebuilt from the payload by the CAIP-122 / EIP-4361 field order, the signature checked per
// signature type (`eip191`: EIP-191 by the `iss` address; `solana:ed25519`: Ed25519 by the `iss` public key over
// the Sign In With Solana text), and the payload bound to the dapp's own request (domain, nonce, aud, chains,
// validity window). TON's `ton_proof` CACAOs carry a TON Connect proof: check those with `verifyTonProof`.
import { hashMessage } from 'viem/utils'
import { checkedSignature, recoverSigner, sameAddress } from './internal/evm.js'
import { base58Signature, verifyEd25519 } from './internal/solana.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type VerifyCacaoOptions = {
  /** The domain the dapp asked the sign-in for (its own host). */
  domain: string
  /** The nonce the dapp issued for this sign-in. */
  nonce: string
  /** The URI the dapp asked for (`aud`); checked when given. */
  uri?: string
  /** The chains the dapp asked for; the CACAO's chain must be one of them when given. */
  chains?: readonly string[]
  /** Milliseconds since the epoch; defaults to `Date.now()`. */
  now?: number
}

const issPattern = /^did:pkh:([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/
const accountNames: Readonly<Record<string, string>> = { eip155: 'Ethereum', solana: 'Solana' }
// Sign In With Solana's Chain ID is the cluster name (github.com/phantom/sign-in-with-solana).
const solanaClusters: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'mainnet',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'testnet',
  localnet: 'localnet',
}

const text = (payload: Record<string, unknown>, field: string): string | undefined => {
  const value = Object.hasOwn(payload, field) ? payload[field] : undefined
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') fail(`p.${field} is not a string`)
  return value
}

/** The CAIP-122 text of a CACAO payload (EIP-4361 for eip155, Sign In With Solana for solana). */
export function cacaoMessage(payload: Record<string, unknown>): string {
  const iss = text(payload, 'iss') ?? fail('p.iss is missing')
  const match = issPattern.exec(iss) ?? fail(`p.iss ${iss} is not a did:pkh CAIP-10 account`)
  const [, namespace, reference, address] = match
  const accountName = accountNames[namespace!] ?? fail(`no CAIP-122 message profile for ${namespace}`)
  const chainId = namespace === 'solana' ? solanaClusters[reference!] : reference
  if (chainId === undefined) fail(`no Sign In With Solana chain id for ${reference}`)
  const resources = Object.hasOwn(payload, 'resources') ? payload.resources : undefined
  if (resources !== undefined && !Array.isArray(resources)) fail('p.resources is not a list')
  if (resources?.some((resource) => typeof resource !== 'string' || resource.startsWith('urn:recap:'))) {
    fail('p.resources holds a ReCap (or a non-string): its statement is not rebuilt here')
  }
  const statement = text(payload, 'statement')
  const optional = (label: string, value: string | undefined) => (value ? [`${label}: ${value}`] : [])
  const lines = [
    `${text(payload, 'domain') ?? fail('p.domain is missing')} wants you to sign in with your ${accountName} account:`,
    address!,
    '',
    // EIP-4361 keeps both blank lines around an absent statement.
    ...(statement ? [statement] : []),
    '',
    `URI: ${text(payload, 'aud') ?? text(payload, 'uri') ?? fail('p.aud is missing')}`,
    `Version: ${text(payload, 'version') ?? fail('p.version is missing')}`,
    `Chain ID: ${chainId}`,
    `Nonce: ${text(payload, 'nonce') ?? fail('p.nonce is missing')}`,
    `Issued At: ${text(payload, 'iat') ?? fail('p.iat is missing')}`,
    ...optional('Expiration Time', text(payload, 'exp')),
    ...optional('Not Before', text(payload, 'nbf')),
    ...optional('Request ID', text(payload, 'requestId')),
    ...(resources?.length ? ['Resources:', ...resources.map((resource) => `- ${resource}`)] : []),
  ]
  if (statement !== undefined && /[\r\n]/.test(statement)) fail('p.statement spans several lines')
  return lines.join('\n')
}

/** Checks a CACAO from `session.authentication` against the sign-in the dapp asked for. Never throws. */
export function verifyCacao(cacao: unknown, options: VerifyCacaoOptions): VerifyResult {
  return guarded(() => {
    if (!isRecord(cacao) || !isRecord(cacao.p) || !isRecord(cacao.s) || !isRecord(cacao.h)) {
      fail('not a CACAO { h, p, s }')
    }
    if (cacao.h.t !== 'caip122') fail(`header type ${String(cacao.h.t)} is not caip122`)
    const payload = cacao.p
    if (payload.domain !== options.domain) fail(`domain ${String(payload.domain)} is not ${options.domain}`)
    if (payload.nonce !== options.nonce) fail('the nonce is not the one issued')
    if (options.uri !== undefined && (payload.aud ?? payload.uri) !== options.uri) {
      fail(`aud ${String(payload.aud ?? payload.uri)} is not ${options.uri}`)
    }
    const [, namespace, reference, address] =
      issPattern.exec(String(payload.iss)) ?? fail('p.iss is not did:pkh')
    if (options.chains !== undefined && !options.chains.includes(`${namespace}:${reference}`)) {
      fail(`signed for ${namespace}:${reference}, which was not asked for`)
    }
    const now = options.now ?? Date.now()
    const exp = text(payload, 'exp')
    if (exp !== undefined && !(Date.parse(exp) > now)) fail(`expired (or unreadable) at ${exp}`)
    const nbf = text(payload, 'nbf')
    if (nbf !== undefined && !(Date.parse(nbf) <= now)) fail(`not valid (or unreadable) before ${nbf}`)
    const message = cacaoMessage(payload)
    const signature = cacao.s.s
    if (cacao.s.t === 'eip191' && namespace === 'eip155') {
      const recovered = recoverSigner(hashMessage(message), checkedSignature(signature))
      if (!sameAddress(recovered, address!)) fail(`signed by ${recovered}, not ${address}`)
    } else if (cacao.s.t === 'solana:ed25519' && namespace === 'solana') {
      const bytes = new TextEncoder().encode(message)
      if (!verifyEd25519(base58Signature(signature, 's.s'), bytes, address!)) {
        fail('the Ed25519 signature does not verify')
      }
    } else {
      fail(
        `signature type ${String(cacao.s.t)} on ${namespace} is not checked here (eip1271 needs a chain call)`,
      )
    }
  })
}
