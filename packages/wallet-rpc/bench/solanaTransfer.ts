import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'

/**
 * The Solana transaction the benches sign: one System transfer of `amount` lamports from `feePayer`, built
 * with @solana/kit as a dapp would; its wire form (base64) and the message bytes a signature covers.
 */
export function solanaTransfer(feePayer: string, amount: bigint): { wire: string; message: Uint8Array } {
  const payer = address(feePayer)
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferSolInstruction({
            source: createNoopSigner(payer),
            destination: address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'),
            amount,
          }),
        ],
        m,
      ),
  )
  const compiled = compileTransaction(message)
  return { wire: getBase64EncodedWireTransaction(compiled), message: new Uint8Array(compiled.messageBytes) }
}
