import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js'
import * as btc from '@scure/btc-signer'
import {
  checkTransaction,
  type ParsedTransaction,
  parseRawTransaction,
  type SpentOutput,
  TransactionRejected,
} from './validate.js'

/** Bitcoin regtest address parameters (bech32 `bcrt`, base58 0x6f / 0xc4). */
export const regtestNetwork = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef } as const

export type OutputRecord = {
  txid: string
  vout: number
  value: bigint
  script: Uint8Array
  /** The mempool or confirmed transaction that spends it. */
  spentBy: string | undefined
}

export type TransactionRecord = {
  txid: string
  raw: Uint8Array
  parsed: ParsedTransaction
  /** 0 for the chain's own funding transactions. */
  fee: bigint
  blockHeight: number | undefined
  /** Outpoints this transaction spends (`txid:vout`); empty for funding transactions. */
  spends: string[]
}

export type Block = { height: number; hash: string; time: number; txids: string[] }

export type RegtestChainOptions = {
  /** sat/vB below which a transaction is refused (Core's default minrelaytxfee: 1 sat/vB). */
  minRelayFeeRate?: number
  /** What `/fee-estimates` answers for every target, sat/vB. */
  feeRate?: number
  /** Unix seconds of the genesis block; blocks are 600 s apart. */
  genesisTime?: number
}

const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`

/**
 * An in-memory Bitcoin regtest chain: a UTXO set, a mempool and blocks mined on demand. It accepts a
 * transaction only after `checkTransaction` verified every input with an independent implementation.
 */
export class RegtestChain {
  readonly outputs = new Map<string, OutputRecord>()
  readonly transactions = new Map<string, TransactionRecord>()
  readonly blocks: Block[] = []
  readonly mempool = new Set<string>()
  private readonly byScript = new Map<string, string[]>()
  readonly minRelayFeeRate: number
  feeRate: number
  private readonly genesisTime: number

  constructor(options: RegtestChainOptions = {}) {
    this.minRelayFeeRate = options.minRelayFeeRate ?? 1
    this.feeRate = options.feeRate ?? 2
    this.genesisTime = options.genesisTime ?? 1_700_000_000
    this.blocks.push({
      height: 0,
      hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
      time: this.genesisTime,
      txids: [],
    })
  }

  get height(): number {
    return this.blocks.length - 1
  }

  get tip(): Block {
    return this.blocks[this.blocks.length - 1]!
  }

  /** The scriptPubKey of a regtest address (P2PKH, P2SH, P2WPKH, P2WSH, P2TR). */
  scriptOf(address: string): Uint8Array {
    return btc.OutScript.encode(btc.Address(regtestNetwork).decode(address))
  }

  addressOf(script: Uint8Array): string | undefined {
    try {
      return btc.Address(regtestNetwork).encode(btc.OutScript.decode(script))
    } catch {
      return undefined
    }
  }

  /**
   * Pays `sats` to `address` (or a raw script) from the chain's faucet: a transaction whose one input
   * spends a made-up outpoint, so it serializes like any other and `GET /tx/:id/hex` can serve it as a
   * parent. Confirmed in a new block unless `confirm` is false.
   */
  fund(
    target: string | Uint8Array,
    sats: bigint | number,
    options: { confirm?: boolean } = {},
  ): { txid: string; vout: number } {
    const script = typeof target === 'string' ? this.scriptOf(target) : target
    const value = BigInt(sats)
    if (value <= 0n) throw new RangeError('fund amount must be positive')
    const raw = btc.RawTx.encode({
      version: 2,
      segwitFlag: false,
      inputs: [{ txid: randomBytes(32), index: 0, finalScriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [{ amount: value, script }],
      witnesses: undefined,
      lockTime: 0,
    })
    const parsed = parseRawTransaction(raw)
    this.record(parsed, 0n, [])
    if (options.confirm ?? true) this.mine(1)
    return { txid: parsed.txid, vout: 0 }
  }

  /** Validates and adds to the mempool; returns the txid. Throws TransactionRejected with Core's reason. */
  submit(raw: Uint8Array): string {
    const { tx, spends, fee } = this.validate(raw)
    this.record(tx, fee, spends)
    return tx.txid
  }

  /** Runs the same checks as `submit` without keeping the transaction (like `testmempoolaccept`). */
  test(raw: Uint8Array): { allowed: true; txid: string; fee: bigint } | { allowed: false; reason: string } {
    try {
      const { tx, fee } = this.validate(raw)
      return { allowed: true, txid: tx.txid, fee }
    } catch (error) {
      if (error instanceof TransactionRejected) return { allowed: false, reason: error.reason }
      throw error
    }
  }

  private validate(raw: Uint8Array): { tx: ParsedTransaction; spends: string[]; fee: bigint } {
    const tx = parseRawTransaction(raw)
    const existing = this.transactions.get(tx.txid)
    if (existing)
      throw new TransactionRejected(
        existing.blockHeight === undefined ? 'txn-already-in-mempool' : 'txn-already-known',
      )
    const seen = new Set<string>()
    const spent: SpentOutput[] = []
    for (const input of tx.inputs) {
      const key = outpointKey(input.txid, input.vout)
      if (seen.has(key)) throw new TransactionRejected('bad-txns-inputs-duplicate')
      seen.add(key)
      const output = this.outputs.get(key)
      if (!output) throw new TransactionRejected('bad-txns-inputs-missingorspent')
      if (output.spentBy !== undefined) {
        const spender = this.transactions.get(output.spentBy)
        throw new TransactionRejected(
          spender?.blockHeight === undefined ? 'txn-mempool-conflict' : 'bad-txns-inputs-missingorspent',
        )
      }
      spent.push({ script: output.script, value: output.value })
    }
    const fee = checkTransaction(tx, spent, { minRelayFeeRate: this.minRelayFeeRate })
    return { tx, spends: [...seen], fee }
  }

  private record(tx: ParsedTransaction, fee: bigint, spends: string[]): void {
    for (const key of spends) this.outputs.get(key)!.spentBy = tx.txid
    tx.outputs.forEach((output, vout) => {
      const key = outpointKey(tx.txid, vout)
      this.outputs.set(key, {
        txid: tx.txid,
        vout,
        value: output.value,
        script: output.script,
        spentBy: undefined,
      })
      const scriptHex = bytesToHex(output.script)
      const list = this.byScript.get(scriptHex)
      if (list) list.push(key)
      else this.byScript.set(scriptHex, [key])
    })
    this.transactions.set(tx.txid, {
      txid: tx.txid,
      raw: tx.raw,
      parsed: tx,
      fee,
      blockHeight: undefined,
      spends,
    })
    this.mempool.add(tx.txid)
  }

  /** Mines `count` blocks; the first takes the whole mempool. Returns the new block hashes. */
  mine(count = 1): string[] {
    const hashes: string[] = []
    for (let i = 0; i < count; i++) {
      const height = this.blocks.length
      const txids = [...this.mempool]
      this.mempool.clear()
      const hash = bytesToHex(
        sha256(new TextEncoder().encode(`${this.tip.hash}:${height}:${txids.join(',')}`)),
      )
      for (const txid of txids) this.transactions.get(txid)!.blockHeight = height
      this.blocks.push({ height, hash, time: this.genesisTime + height * 600, txids })
      hashes.push(hash)
    }
    return hashes
  }

  /** Every output ever created for `script`, oldest first. */
  outputsOf(script: Uint8Array): OutputRecord[] {
    return (this.byScript.get(bytesToHex(script)) ?? []).map((key) => this.outputs.get(key)!)
  }

  /** Unspent outputs of `script`, counting mempool spends as spent (as Esplora does). */
  utxosOf(script: Uint8Array): OutputRecord[] {
    return this.outputsOf(script).filter((output) => output.spentBy === undefined)
  }

  isConfirmed(txid: string): boolean {
    return this.transactions.get(txid)?.blockHeight !== undefined
  }

  rawTransaction(txid: string): Uint8Array | undefined {
    return this.transactions.get(txid)?.raw
  }

  balance(target: string | Uint8Array): bigint {
    const script = typeof target === 'string' ? this.scriptOf(target) : target
    return this.utxosOf(script).reduce((sum, output) => sum + output.value, 0n)
  }
}
