import { ed25519 } from '@noble/curves/ed25519.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'

export const tokenProgram = base58.decode('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
export const associatedTokenProgram = base58.decode('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

/** The associated token account of `owner` for `mint` (the PDA of [owner, token program, mint]). */
export function associatedTokenAccount(owner: Uint8Array, mint: Uint8Array): Uint8Array {
  for (let bump = 255; bump >= 0; bump--) {
    const candidate = sha256(
      concatBytes(
        owner,
        tokenProgram,
        mint,
        Uint8Array.of(bump),
        associatedTokenProgram,
        utf8ToBytes('ProgramDerivedAddress'),
      ),
    )
    if (!isOnCurve(candidate)) return candidate
  }
  throw new Error('no program address')
}

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes)
    return true
  } catch {
    return false
  }
}
