import { concatBytes } from '@noble/hashes/utils.js'
import { sha256 } from '../crypto/sha256.js'
import { parseAddress } from './encoding.js'
import { associatedTokenProgram } from './programs.js'

// Ed25519's field prime and curve constant d (RFC 8032, 5.1).
const p = 2n ** 255n - 19n
const d = (((-121665n * invert(121666n)) % p) + p) % p
const sqrtMinusOne = power(2n, (p - 1n) / 4n)

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n
  let b = ((base % p) + p) % p
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % p
    b = (b * b) % p
  }
  return result
}

function invert(value: bigint): bigint {
  return power(value, p - 2n)
}

/**
 * Whether 32 bytes decode to a point of the Ed25519 curve (RFC 8032, 5.1.3 decoding). A program derived
 * address is by definition off the curve, so no private key can sign for it.
 */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false
  let y = 0n
  for (let index = 31; index >= 0; index--) y = (y << 8n) | BigInt(bytes[index]!)
  const sign = y >> 255n
  y &= (1n << 255n) - 1n
  if (y >= p) return false
  const y2 = (y * y) % p
  const u = (y2 - 1n + p) % p
  const v = (d * y2 + 1n) % p
  // x = (u/v)^((p+3)/8) computed as u v^3 (u v^7)^((p-5)/8); a square root exists iff v x^2 = ±u.
  const v3 = (v * v * v) % p
  let x = (u * v3 * power(u * v3 * v3 * v, (p - 5n) / 8n)) % p
  const vx2 = (v * x * x) % p
  if (vx2 !== u) {
    if (vx2 !== (p - u) % p) return false
    x = (x * sqrtMinusOne) % p
  }
  return !(x === 0n && sign === 1n)
}

const pdaMarker = new TextEncoder().encode('ProgramDerivedAddress')

/**
 * The program derived address of `seeds` under `program` (Solana's `findProgramAddress`): the first bump from
 * 255 down whose hash is off the curve.
 */
export function findProgramAddress(seeds: readonly Uint8Array[], program: Uint8Array): Uint8Array {
  for (let bump = 255; bump >= 0; bump--) {
    const candidate = sha256(concatBytes(...seeds, Uint8Array.of(bump), program, pdaMarker))
    if (!isOnEd25519Curve(candidate)) return candidate
  }
  throw new Error('no program derived address for these seeds')
}

/** The associated token account of `owner` for `mint` under `tokenProgram` (SPL Token or Token-2022). */
export function associatedTokenAccount(
  owner: Uint8Array,
  mint: Uint8Array,
  tokenProgram: Uint8Array,
): Uint8Array {
  return findProgramAddress(
    [owner, tokenProgram, mint],
    parseAddress(associatedTokenProgram, 'associatedTokenProgram'),
  )
}
