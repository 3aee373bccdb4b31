import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { UsageError, type WalletCliOptions } from '../walletFromOptions/options.js'
import { maskUrl } from './maskUrl.js'

export { UsageError, type WalletCliOptions } from '../walletFromOptions/options.js'

export const walletOptionSpec = {
  'mnemonic-file': { type: 'string' },
  'ton-mnemonic-file': { type: 'string' },
  'ton-wallet': { type: 'string' },
  account: { type: 'string' },
  approve: { type: 'string' },
  now: { type: 'string' },
  esplora: { type: 'string', multiple: true },
  ord: { type: 'string', multiple: true },
  toncenter: { type: 'string', multiple: true },
  rpc: { type: 'string', multiple: true },
  delegate: { type: 'string', multiple: true },
} as const

export function parseWalletOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdinIsTty: boolean,
): WalletCliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: walletOptionSpec,
    strict: true,
    allowPositionals: false,
  })
  const tonWallet = values['ton-wallet'] ?? 'v5r1'
  if (tonWallet !== 'v4r2' && tonWallet !== 'v5r1') throw new UsageError('--ton-wallet must be v4r2 or v5r1')
  const approve = values.approve ?? (stdinIsTty ? 'prompt' : 'none')
  if (approve !== 'all' && approve !== 'none' && approve !== 'prompt') {
    throw new UsageError('--approve must be all or none')
  }
  return {
    mnemonic:
      readSecret(values['mnemonic-file'], '--mnemonic-file') ?? normalizeWords(env.WALLET_RPC_MNEMONIC),
    tonMnemonic:
      readSecret(values['ton-mnemonic-file'], '--ton-mnemonic-file') ??
      normalizeWords(env.WALLET_RPC_TON_MNEMONIC),
    tonWallet,
    account: wholeNumber(values.account ?? '0', '--account', 0x7fffffff),
    approve,
    now: values.now === undefined ? undefined : wholeNumber(values.now, '--now', Number.MAX_SAFE_INTEGER),
    esplora: urlMap(values.esplora, '--esplora'),
    ord: urlMap(values.ord, '--ord'),
    toncenter: urlMap(values.toncenter, '--toncenter'),
    rpc: urlMap(values.rpc, '--rpc'),
    delegate: delegateMap(values.delegate),
  }
}

/** `eip155:ID=0x…` pairs: a decimal chain id and a 20-byte hex address. */
function delegateMap(entries: readonly string[] | undefined): Map<string, string> {
  const map = new Map<string, string>()
  for (const entry of entries ?? []) {
    const match = /^(eip155:[1-9]\d{0,15})=(0x[0-9a-fA-F]{40})$/.exec(entry)
    if (!match)
      throw new UsageError(`--delegate takes eip155:ID=ADDRESS (a 0x-prefixed 20-byte address), got ${entry}`)
    map.set(match[1]!, match[2]!)
  }
  return map
}

function readSecret(file: string | undefined, flag: string): string | undefined {
  if (file === undefined) return undefined
  try {
    return normalizeWords(readFileSync(file, 'utf8'))
  } catch {
    // Never the value itself: people pass the phrase instead of a path, and it would land in logs.
    const hint = /\s/.test(file.trim())
      ? ' (the value looks like a phrase, not a path: put it in a file)'
      : ''
    throw new UsageError(`${flag}: cannot read the file (its name is not shown)${hint}`)
  }
}

function normalizeWords(text: string | undefined): string | undefined {
  const words = text?.trim().split(/\s+/).join(' ')
  return words ? words : undefined
}

function wholeNumber(text: string, flag: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${flag} must be a whole number`)
  return Number(text)
}

/** `CHAIN=URL` pairs, e.g. `eip155:31337=http://127.0.0.1:8545`. The chain id itself contains a colon. */
function isUrl(text: string): boolean {
  try {
    new URL(text)
    return true
  } catch {
    return false
  }
}

function urlMap(entries: readonly string[] | undefined, flag: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const entry of entries ?? []) {
    const at = entry.indexOf('=')
    const chainId = entry.slice(0, at)
    const url = entry.slice(at + 1)
    if (at <= 0 || !isUrl(url)) throw new UsageError(`${flag} takes CHAIN=URL, got ${maskUrl(entry)}`)
    map.set(chainId, url)
  }
  return map
}

/**
 * `text` with every run of three or more words of a secret phrase replaced (so neither the phrase nor a
 * recognisable part of it is printed), while single common words such as "about" stay readable.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let redacted = text
  for (const secret of secrets) {
    const words = [...new Set(secret?.toLowerCase().match(/[a-z]+/g) ?? [])]
    if (words.length === 0) continue
    const word = `(?:${words.join('|')})`
    redacted = redacted.replace(new RegExp(`\\b${word}(?:\\W+${word}){2,}\\b`, 'gi'), '[redacted]')
  }
  return redacted
}
