import { psbtFromUnsignedTransaction } from '../../src/bip122/psbt/build.js'
import {
  serializeTransaction,
  type Transaction,
  transactionId,
  txidToHash,
} from '../../src/bip122/transaction/transaction.js'
import type { AccountAddress } from '../../src/bip122/types.js'

/**
 * The `count` small parent transactions of `manyInputPsbt`'s inputs: parent i pays `10 000 + i` sat to
 * `owners[i % owners.length]` in its one output, and spends a made-up outpoint (`seed`, i), so two seeds give
 * two different sets.
 */
export function manyInputParents(options: {
  owners: readonly AccountAddress[]
  count: number
  seed: number
}): Transaction[] {
  const { owners, count, seed } = options
  return Array.from({ length: count }, (_, i) => ({
    version: 2,
    locktime: 0,
    inputs: [
      {
        txid: new Uint8Array(32).fill(seed),
        vout: i,
        sequence: 0xffffffff,
        scriptSig: new Uint8Array(0),
        witness: [],
      },
    ],
    outputs: [{ script: owners[i % owners.length]!.scriptPubKey, value: BigInt(10_000 + i) }],
  }))
}

/**
 * signPsbt's params for a large PSBT (bench/eventLoop, test/core/yieldingRequests): `count` inputs of the
 * wallet's own `owners` (cycling over them), each spending the one output of its own small parent
 * transaction (`manyInputParents`). `parents` puts that parent in the input (nonWitnessUtxo, the segwit-v0
 * amount proof), `witnessUtxo` the spent output itself (what a P2TR input needs; a P2WPKH input with only it
 * has its parent fetched by a wallet with a chain provider). Built from an unsigned transaction
 * (bitcoinjs' addInput with witnessUtxo is quadratic: minutes at 3000 inputs).
 */
export function manyInputPsbt(options: {
  account: string
  owners: readonly AccountAddress[]
  count: number
  /** Fills the parents' own outpoint, so two seeds give two different PSBTs. */
  seed: number
  parents: boolean
  witnessUtxo: boolean
}): { account: string; psbt: string; signInputs: { address: string; index: number }[] } {
  const { owners, count } = options
  const ownerOf = (i: number) => owners[i % owners.length]!
  const parents = manyInputParents(options)
  const psbt = psbtFromUnsignedTransaction({
    version: 2,
    locktime: 0,
    inputs: parents.map((parent) => ({
      txid: txidToHash(transactionId(parent)),
      vout: 0,
      sequence: 0xfffffffd,
      scriptSig: new Uint8Array(0),
      witness: [],
    })),
    outputs: [{ script: ownerOf(0).scriptPubKey, value: BigInt(count) * 9_000n }],
  })
  for (const [i, parent] of parents.entries()) {
    psbt.updateInput(i, {
      ...(options.witnessUtxo ? { witnessUtxo: parent.outputs[0]! } : {}),
      ...(options.parents ? { nonWitnessUtxo: serializeTransaction(parent) } : {}),
    })
  }
  return {
    account: options.account,
    psbt: Buffer.from(psbt.toBuffer()).toString('base64'),
    signInputs: parents.map((_, index) => ({ address: ownerOf(index).address, index })),
  }
}
