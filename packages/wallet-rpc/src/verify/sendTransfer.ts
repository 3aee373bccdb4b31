// bip122 `sendTransfer`: the broadcast transaction pays the recipient the amount, carries the memo when asked
// (and no OP_RETURN otherwise), sends change only where allowed, and its id is the returned txid.
import { concatBytes } from '@noble/hashes/utils.js'
import { hex } from '@scure/base'
import {
  type BitcoinNetwork,
  checkKeySpend,
  classifyScript,
  decodeAddress,
  equalBytes,
  parseTransaction,
  type RawTransaction,
  type TxOutput,
  txidOf,
} from '../checks/bitcoin.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type SendTransferParams = {
  account: string
  recipientAddress: string
  /** Satoshis: a decimal string, or a safe integer (the lenient form wallet-rpc accepts). */
  amount: string | number
  changeAddress?: string
  memo?: string
}

export type VerifySendTransferOptions = {
  /** The broadcast transaction, hex (e.g. from the Esplora API `GET /tx/:txid/hex`). */
  rawTransaction: string
  network?: BitcoinNetwork
  /** The account's addresses (getAccountAddresses): change and spent inputs must belong to them. */
  accountAddresses?: readonly string[]
  /** Previous outputs of the inputs, in input order: each input's signature is then checked too. */
  prevouts?: readonly { script: string; amount: string | number | bigint }[]
}

/** Checks a wallet's `sendTransfer` answer against the request and the broadcast transaction. Never throws. */
export function verifySendTransfer(
  params: SendTransferParams,
  result: unknown,
  options: VerifySendTransferOptions,
): VerifyResult {
  return guarded(() => {
    if (!isRecord(params)) fail('request is not an object')
    if (!isRecord(result) || typeof result.txid !== 'string') fail('result has no txid')
    if (!/^[0-9a-f]{64}$/.test(result.txid)) fail('txid is not 64 lowercase hex characters without 0x')
    if (!isRecord(options) || typeof options.rawTransaction !== 'string')
      fail('the raw transaction is needed')
    if (!/^([0-9a-fA-F]{2})+$/.test(options.rawTransaction)) fail('the raw transaction is not hex')
    const tx = parseTransaction(hex.decode(options.rawTransaction.toLowerCase()))
    if (txidOf(tx) !== result.txid) fail(`txid ${result.txid} is not the transaction's id ${txidOf(tx)}`)
    const amount = typeof params.amount === 'number' ? String(params.amount) : params.amount
    if (typeof params.amount === 'number' && !Number.isSafeInteger(params.amount))
      fail('request amount is invalid')
    if (typeof amount !== 'string' || !/^[1-9]\d{0,15}$/.test(amount)) fail('request amount is invalid')
    const recipient = decodeAddress(params.recipientAddress)
    if (options.network !== undefined && !recipient.networks.includes(options.network)) {
      fail(`${params.recipientAddress} is not a ${options.network} address`)
    }
    const paid = tx.outputs
      .filter((output) => equalBytes(output.script, recipient.script))
      .reduce((sum, output) => sum + output.amount, 0n)
    if (paid !== BigInt(amount)) fail(`pays the recipient ${paid} sat, requested ${amount}`)

    const opReturns = tx.outputs.filter((output) => output.script[0] === 0x6a)
    if (params.memo === undefined) {
      if (opReturns.length > 0) fail('an OP_RETURN output was added although no memo was requested')
    } else {
      if (!/^([0-9a-fA-F]{2}){0,80}$/.test(params.memo)) fail('request memo is not hex of at most 80 bytes')
      const data = hex.decode(params.memo.toLowerCase())
      const expected = concatBytes(
        Uint8Array.of(0x6a),
        data.length <= 75 ? Uint8Array.of(data.length) : Uint8Array.of(0x4c, data.length),
        data,
      )
      if (opReturns.length !== 1) fail(`expected one OP_RETURN output, found ${opReturns.length}`)
      if (!equalBytes(opReturns[0]!.script, expected))
        fail('the OP_RETURN output does not carry the memo bytes')
      if (opReturns[0]!.amount !== 0n) fail('the OP_RETURN output burns coins')
    }

    const changeScripts = changeScriptsFor(params, options)
    for (const [index, output] of tx.outputs.entries()) {
      if (equalBytes(output.script, recipient.script) || output.script[0] === 0x6a) continue
      if (changeScripts === undefined) continue
      if (!changeScripts.some((script) => equalBytes(script, output.script))) {
        fail(`output ${index} pays neither the recipient nor an allowed change address`)
      }
    }
    if (options.prevouts !== undefined) checkInputs(tx, options)
  })
}

function changeScriptsFor(
  params: SendTransferParams,
  options: VerifySendTransferOptions,
): Uint8Array[] | undefined {
  if (params.changeAddress !== undefined) return [decodeAddress(params.changeAddress).script]
  if (options.accountAddresses !== undefined)
    return options.accountAddresses.map((a) => decodeAddress(a).script)
  return undefined
}

function checkInputs(tx: RawTransaction, options: VerifySendTransferOptions): void {
  const prevouts: TxOutput[] = (options.prevouts ?? []).map((prevout) => ({
    script: hex.decode(prevout.script),
    amount: BigInt(prevout.amount),
  }))
  if (prevouts.length !== tx.inputs.length)
    fail(`${tx.inputs.length} inputs but ${prevouts.length} previous outputs given`)
  const owned = options.accountAddresses?.map((address) => decodeAddress(address).script)
  const spent = prevouts.reduce((sum, p) => sum + p.amount, 0n)
  const sent = tx.outputs.reduce((sum, o) => sum + o.amount, 0n)
  if (spent < sent) fail(`outputs (${sent} sat) exceed inputs (${spent} sat)`)
  for (const index of tx.inputs.keys()) {
    const prevout = prevouts[index]!
    if (owned && !owned.some((script) => equalBytes(script, prevout.script))) {
      fail(`input ${index} spends a coin outside the account`)
    }
    const kind = classifyScript(prevout.script)
    if (kind === undefined) fail(`input ${index} spends a script type this verifier does not know`)
    checkKeySpend(tx, index, prevouts, kind)
  }
}
