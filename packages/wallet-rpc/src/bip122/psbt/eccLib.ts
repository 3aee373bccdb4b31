import { initEccLib } from 'bitcoinjs-lib'
import { ecc } from '../../crypto/secp256k1.js'

let installed = false

/**
 * bitcoinjs-lib needs a secp256k1 backend for anything taproot (P2TR scripts, finalizing key-path inputs,
 * bech32m addresses); without one it throws "No ECC Library provided". `initEccLib` self-tests the backend,
 * which would choose ours at import, so this runs it before the first PSBT instead.
 */
export function useOurEccInBitcoinjs(): void {
  if (installed) return
  initEccLib(ecc)
  installed = true
}
