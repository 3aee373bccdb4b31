import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import { base58 } from '@scure/base'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** The sandbox-held keys live payments are paid to and settled from (EVM secp256k1, Solana Ed25519 seed). */
export type TreasuryKeys = { evmKey: Hex; solanaSeed: Hex }

export type Treasury = {
  keys: TreasuryKeys
  evmAddress: Address
  /** Solana public key, 32 bytes and base58. */
  solanaKey: Uint8Array
  solanaAddress: string
}

export function treasuryOf(keys: TreasuryKeys): Treasury {
  const solanaKey = ed25519.getPublicKey(Buffer.from(keys.solanaSeed.slice(2), 'hex'))
  return {
    keys,
    evmAddress: privateKeyToAccount(keys.evmKey).address,
    solanaKey,
    solanaAddress: base58.encode(solanaKey),
  }
}

const fresh = (): TreasuryKeys => ({
  evmKey: `0x${randomBytes(32).toString('hex')}`,
  solanaSeed: `0x${randomBytes(32).toString('hex')}`,
})

/**
 * The treasury keys: given, or kept in `dir/treasury.json` (mode 0600, beside the live journal) so a restart
 * pays from and settles with the same accounts; without a directory, fresh ones for this run.
 */
export function loadTreasury(dir: string | undefined, given: TreasuryKeys | undefined): Treasury {
  if (given !== undefined) return treasuryOf(given)
  if (dir === undefined) return treasuryOf(fresh())
  const path = join(dir, 'treasury.json')
  if (existsSync(path)) return treasuryOf(JSON.parse(readFileSync(path, 'utf8')) as TreasuryKeys)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const keys = fresh()
  writeFileSync(path, JSON.stringify(keys), { mode: 0o600, flush: true })
  return treasuryOf(keys)
}
