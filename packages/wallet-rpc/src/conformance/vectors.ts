// The conformance vector format (`test-vectors/<namespace>/<method>.json`, marked
// `"format": "wallet-rpc-conformance/1"`); test-vectors/README.md documents it for wallet teams.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const vectorFormat = 'wallet-rpc-conformance/1'

/** Local chains a case can need; the runner starts each one once, on 127.0.0.1. */
export type ChainKind = 'anvil' | 'anvil-prague' | 'bitcoin-regtest' | 'ton-sandbox'

/** What a handler factory receives: the wallet to build. */
export type WalletConfig = {
  /** BIP-39 mnemonic for bip122 and eip155. */
  mnemonic?: string
  /** TON's own 24-word mnemonic. */
  tonMnemonic?: string
  tonWallet?: 'v4r2' | 'v5r1'
  /** Account index (bip122 `m/purpose'/coin'/N'`, eip155 `m/44'/60'/0'/0/N`, TON subwallet N). */
  account: number
  /** The wallet's clock, Unix seconds (signData timestamps, valid_until checks). */
  now: number
  /** How the user answers every review. */
  approve: 'all' | 'none'
  /** Chain providers by CAIP-2 id: bip122 → Esplora URL, eip155 → JSON-RPC URL, ton → toncenter v2 URL. */
  providers: Record<string, string>
  /**
   * EIP-7702 delegates by CAIP-2 id: the ERC-7821 executor the runner deployed on that chain, which atomic
   * `wallet_sendCalls` batches delegate the account to (`eip155({ chains: [{ eip7702: { delegate } }] })`,
   * `wallet-rpc handle --delegate`). Present only for a case on a chain that has one (`anvil-prague`).
   */
  delegates?: Record<string, string>
}

export type VectorRequest = { chainId: string; origin?: string; method: string; params?: unknown }

export type Expectation = {
  /** The exact result (deterministic signatures). */
  result?: unknown
  /** Fields the result object must have, with these exact values (others may be present). */
  resultIncludes?: Record<string, unknown>
  /** A `wallet-rpc/verify` function that must accept the result; `options` are passed as given (see README). */
  verify?: { function: string; options?: Record<string, unknown> }
  /** The JSON-RPC error code the wallet must answer instead of a result. */
  error?: { code: number }
  /** Alternatives: the answer passes when it meets any one (e.g. a refusal, or a correct signature). */
  oneOf?: Expectation[]
}

/** `address` may be `$wallet`: the TON wallet address behind the handler's `ton_getStateInit`. */
export type FundingStep = { address: string; amount: string }

/**
 * `fixed`: the case needs the suite's keys (exact bytes, or a request built over the fixed wallet's addresses,
 * PSBTs or accounts other than its main one); `any`: validity checks only, so it runs against any wallet whose
 * announced account replaces the fixed one in the request (the WalletConnect transport).
 */
export type KeyNeed = 'fixed' | 'any'

export type VectorCase = {
  name: string
  source?: string
  /** Overrides the computed need (see keysOf) where the rule is wrong, e.g. a request naming a P2SH address. */
  keys?: KeyNeed
  /** Overrides of the file's wallet configuration. */
  wallet?: Partial<Omit<WalletConfig, 'providers'>>
  /** A local chain the case needs (sending methods). */
  chain?: ChainKind
  /** Coins sent to wallet addresses before the request (bip122: sats, ton: nanotons). */
  fund?: FundingStep[]
  /**
   * bip122: the runner builds a PSBT spending this case's funded outputs (all of them, P2WPKH, in funding order)
   * to `recipient`, minus `fee` sats, and puts it (base64) wherever the request's params say `$fundingPsbt`.
   */
  spendFunding?: { recipient: string; fee: string }
  request: VectorRequest
  expect: Expectation
}

export type VectorFile = {
  format: typeof vectorFormat
  namespace: 'bip122' | 'ton' | 'eip155' | 'solana'
  method: string
  description?: string
  source: string
  license: string
  wallet: Omit<WalletConfig, 'providers'>
  cases: VectorCase[]
}

export type LoadedVectors = { file: string; vector: VectorFile }

/** `test-vectors/` of this package (beside `src/` and `dist/`). */
export function defaultVectorsDir(): string {
  return fileURLToPath(new URL('../../test-vectors/', import.meta.url))
}

/** Every conformance vector file under `dir` (other JSON files there, e.g. spec vectors, are skipped). */
export function loadVectors(dir: string = defaultVectorsDir()): LoadedVectors[] {
  const out: LoadedVectors[] = []
  for (const path of jsonFiles(dir)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'))
    } catch {
      continue
    }
    if (!isVectorFile(parsed)) continue
    out.push({ file: relative(dir, path), vector: parsed })
  }
  return out.sort((a, b) => a.file.localeCompare(b.file))
}

function jsonFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...jsonFiles(path))
    else if (name.endsWith('.json')) out.push(path)
  }
  return out
}

function isVectorFile(value: unknown): value is VectorFile {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  if (record.format !== vectorFormat) return false
  if (typeof record.source !== 'string' || typeof record.license !== 'string') {
    throw new Error(`vector file for ${String(record.method)} lacks source or license`)
  }
  return Array.isArray(record.cases) && typeof record.wallet === 'object'
}

/**
 * What a case needs of the wallet's keys. The rule: exact expected values (`result`, `resultIncludes`, in any
 * `oneOf` branch), another account, key set or wallet contract than the file's, or a transaction built over the
 * fixed wallet (PSBTs, Solana transactions) need the fixed keys; everything else is checked by verifiers or
 * error codes and works with any keys. An explicit `keys` field wins.
 */
export function keysOf(vector: VectorFile, testCase: VectorCase): KeyNeed {
  if (testCase.keys !== undefined) return testCase.keys
  const overrides = testCase.wallet ?? {}
  const ownKeys = ['mnemonic', 'tonMnemonic', 'tonWallet', 'account'] as const
  if (ownKeys.some((key) => key in overrides && overrides[key] !== vector.wallet[key])) return 'fixed'
  if (transactionsOverFixedKeys.has(testCase.request.method)) return 'fixed'
  return exactValues(testCase.expect) ? 'fixed' : 'any'
}

/** Methods whose request carries a transaction built over the fixed wallet's coins or as its fee payer. */
const transactionsOverFixedKeys = new Set([
  'signPsbt',
  'solana_signTransaction',
  'solana_signAllTransactions',
  'solana_signAndSendTransaction',
])

function exactValues(expect: Expectation): boolean {
  return 'result' in expect || expect.resultIncludes !== undefined || (expect.oneOf ?? []).some(exactValues)
}
