import { address, createNoopSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { kitTransaction, stranger } from '../test/solana/helpers.js'

/**
 * The Solana transaction the benches sign: one System transfer of `amount` lamports from `feePayer`, compiled
 * by @solana/kit as a dapp would (test/solana/helpers.ts); its wire form (base64) and the message bytes a
 * signature covers.
 */
export function solanaTransfer(feePayer: string, amount: bigint): { wire: string; message: Uint8Array } {
  const payer = address(feePayer)
  const { base64, messageBytes } = kitTransaction({
    feePayer: payer,
    instructions: [
      getTransferSolInstruction({ source: createNoopSigner(payer), destination: stranger, amount }),
    ],
  })
  return { wire: base64, message: messageBytes }
}
