import { Psbt } from 'bitcoinjs-lib'
import { ByteWriter } from '../transaction/bytes.js'
import { serializeTransaction, type Transaction } from '../transaction/transaction.js'
import { useOurEccInBitcoinjs } from './eccLib.js'

/**
 * A PSBT (v0) around an unsigned transaction, built without bitcoinjs-lib's `addInput`, which checks every
 * existing input on each add (quadratic: 3000 P2WPKH inputs take over two minutes). The minimal BIP-174
 * serialization is written directly (magic, the unsigned-tx global, one empty map per input and output)
 * and parsed once; callers then `updateInput` with UTXO data, which is constant work per input.
 */
export function psbtFromUnsignedTransaction(tx: Transaction): Psbt {
  const unsigned: Transaction = {
    ...tx,
    inputs: tx.inputs.map((input) => ({ ...input, scriptSig: new Uint8Array(0), witness: [] })),
  }
  const body = serializeTransaction(unsigned, { witness: false })
  const writer = new ByteWriter(body.length + 16 + tx.inputs.length + tx.outputs.length)
  writer.bytes(Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff)) // "psbt" 0xff
  writer.compactSize(1).u8(0x00) // key: PSBT_GLOBAL_UNSIGNED_TX
  writer.varBytes(body)
  writer.u8(0x00) // end of the global map
  for (let i = 0; i < tx.inputs.length + tx.outputs.length; i++) writer.u8(0x00)
  useOurEccInBitcoinjs()
  return Psbt.fromBuffer(writer.finish())
}
