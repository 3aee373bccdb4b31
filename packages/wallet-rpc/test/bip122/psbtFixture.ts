import { sha256 } from '@noble/hashes/sha2.js'
import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import * as bitcoin from 'bitcoinjs-lib'
import * as tiny from 'tiny-secp256k1'
import type { OutputAssetsProvider } from '../../src/bip122/assets/types.js'
import { BIP122_REGTEST } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { type Bip122Namespace, bip122 } from '../../src/bip122/namespace.js'
import type { Bip122Policy } from '../../src/bip122/policy.js'
import { esplora } from '../../src/bip122/providers/esplora.js'
import type { AccountAddress, ChainProvider, KeyProvider, Purpose } from '../../src/bip122/types.js'
import type { WalletEvent } from '../../src/core/events.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'

/**
 * Shared setup for the signPsbt / sendTransfer suites: the embedded regtest chain behind Esplora, the
 * `abandon … about` wallet on Bitcoin regtest reached through the real `esplora()` provider and the real
 * router, an approval spy and an event log. Foreign parties sign with bitcoinjs-lib + tiny-secp256k1.
 */

export const network = bitcoin.networks.regtest
export const chainId = BIP122_REGTEST
export const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

export type Harness = {
  chain: BitcoinRegtest
  rpc: WalletRpc
  namespace: Bip122Namespace
  approvals: Review[]
  events: WalletEvent[]
  /** The answer to one request through `handle()`. */
  call(
    method: string,
    params: unknown,
  ): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>
  address(purpose: Purpose, change?: 0 | 1, index?: number): Promise<AccountAddress>
  accountId: string
  stop(): Promise<void>
}

export type HarnessOptions = {
  policy?: Bip122Policy
  allowDangerous?: string[]
  approve?: (review: Review) => boolean | Promise<boolean>
  /** Replace the chain provider (fault injection); receives the real one. */
  provider?: (real: ChainProvider) => ChainProvider | undefined
  chain?: BitcoinRegtest
  /** Esplora request timeout (ms). */
  timeoutMs?: number
  clock?: () => number
  /** Replace the key provider (spies, static wallets); default hdKeys of the `abandon … about` mnemonic. */
  keys?: KeyProvider
  /** Discovery cache; default 0 (every request re-reads the chain). */
  cacheMs?: number
  /** The chain's assets provider (`ordServer(url)`); none by default. */
  assets?: OutputAssetsProvider
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const chain = options.chain ?? (await startBitcoinRegtest())
  const real = esplora(chain.url, {
    retries: 0,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  })
  const provider = options.provider ? options.provider(real) : real
  const namespace = bip122({
    keys: options.keys ?? hdKeys({ mnemonic }),
    chains: {
      [chainId]: {
        ...(provider ? { provider } : {}),
        ...(options.assets ? { assets: options.assets } : {}),
      },
    },
    // Every request re-reads the chain (tests fund between calls); a gap of 8 keeps that to ~70 reads.
    cacheMs: options.cacheMs ?? 0,
    gapLimit: 8,
    ...(options.policy ? { policy: options.policy } : {}),
  })
  const approvals: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [namespace],
    approve: async (review) => {
      approvals.push(review)
      return options.approve ? options.approve(review) : true
    },
    policy: { allowDangerous: options.allowDangerous ?? [] },
    ...(options.clock ? { clock: options.clock } : {}),
  })
  const events: WalletEvent[] = []
  rpc.on('event', (event) => events.push(event))
  const { account } = await namespace.wallet.chain(chainId)
  let nextId = 1
  return {
    chain,
    rpc,
    namespace,
    approvals,
    events,
    accountId: account.id,
    call: async (method, params) =>
      (await rpc.handle({ chainId, request: { id: nextId++, jsonrpc: '2.0', method, params } })) as {
        result?: unknown
        error?: { code: number; message: string; data?: unknown }
      },
    address: (purpose, change = 0, index = 0) => account.address(purpose, change, index),
    stop: async () => {
      await rpc.close()
      if (!options.chain) await chain.stop()
    },
  }
}

/**
 * Runs `test` with a harness and stops it afterwards. Without `options.chain` the harness has a chain of
 * its own (`wallet.chain`), so UTXO sets do not leak between tests.
 */
export async function withHarness<T>(
  options: HarnessOptions,
  test: (wallet: Harness) => Promise<T>,
): Promise<T> {
  const wallet = await startHarness(options)
  try {
    return await test(wallet)
  } finally {
    await wallet.stop()
  }
}

/** A key outside the wallet, signing with bitcoinjs-lib (an independent implementation). */
export function foreignParty(seed: string) {
  const privateKey = sha256(new TextEncoder().encode(seed))
  const publicKey = tiny.pointFromScalar(privateKey, true)!
  const payment = bitcoin.payments.p2wpkh({ pubkey: publicKey, network })
  return {
    address: payment.address!,
    script: payment.output!,
    publicKey,
    signer: { publicKey, sign: (hash: Uint8Array) => tiny.sign(hash, privateKey) },
  }
}

/** Parent transaction of an outpoint, from the chain (for nonWitnessUtxo). */
export async function parentOf(chain: BitcoinRegtest, txid: string): Promise<Uint8Array> {
  return chain.chain.rawTransaction(txid)!
}

export type PsbtInputSpec = {
  txid: string
  vout: number
  script: Uint8Array
  value: number
  nonWitnessUtxo?: Uint8Array
  witnessUtxo?: boolean
  sighashType?: number
  extra?: Record<string, unknown>
}

/** A PSBT built the way a dapp would, with bitcoinjs-lib. */
export function buildPsbt(
  inputs: PsbtInputSpec[],
  outputs: { script: Uint8Array; value: number }[],
): bitcoin.Psbt {
  const psbt = new bitcoin.Psbt({ network })
  for (const input of inputs) {
    psbt.addInput({
      hash: input.txid,
      index: input.vout,
      sequence: 0xfffffffd,
      ...(input.witnessUtxo === false
        ? {}
        : { witnessUtxo: { script: input.script, value: BigInt(input.value) } }),
      ...(input.nonWitnessUtxo ? { nonWitnessUtxo: input.nonWitnessUtxo } : {}),
      ...(input.sighashType === undefined ? {} : { sighashType: input.sighashType }),
      ...(input.extra ?? {}),
    })
  }
  for (const output of outputs) psbt.addOutput({ script: output.script, value: BigInt(output.value) })
  return psbt
}
