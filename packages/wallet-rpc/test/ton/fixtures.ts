import { readFileSync } from 'node:fs'
import type { Clock } from '../../src/core/clock.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import type { Review } from '../../src/index.js'
import {
  type TonChainProvider,
  type TonNamespaceOptions,
  type TonSigner,
  ton,
  tonKeys,
} from '../../src/ton/index.js'

// biome-ignore lint/suspicious/noExplicitAny: vector files are free-form JSON read by tests.
type Json = Record<string, any>

export const vectors = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/ton/${name}`, import.meta.url), 'utf8'))

/** ton-connect/kit WalletV5R1.fixture.ts key (a valid TON mnemonic). */
export const fixtureSeedHex = '9d659a6c2234db7f6e4f977e6e8653b9f5946d557163f31034011375d8f3f97d'
export const fixturePublicKeyHex = 'f6c450a16bb1c514e22f1977e390a3025599aa1e7b00068a6aacf2119484c1bd'
export const fixtureSigner = (): Promise<TonSigner> =>
  tonKeys.fromSecretKey(Buffer.from(fixtureSeedHex, 'hex'))

/**
 * The fixture key as an external signer that reports every signature it makes (to prove nothing is signed
 * before approval or on a refusal). External, so the namespace also verifies what it returns.
 */
export const spiedSigner = (onSign: (message: Uint8Array) => void): Promise<TonSigner> =>
  fixtureSigner().then((inner) => ({
    publicKey: inner.publicKey,
    sign: (message: Uint8Array) => {
      onSign(message)
      return inner.sign(message)
    },
  }))

/** TON Connect spec example destination (bounceable) and its non-bounceable form. */
export const bounceableDestination = 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn'
export const plainDestination = 'UQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA07-i'
export const testnetDestination = '0QDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0wQo'

/** A provider over a fixed in-memory chain state that records broadcasts. */
export function memoryProvider(
  options: {
    walletState?: 'active' | 'uninit' | 'frozen' | 'nonexist'
    seqno?: number
    balance?: bigint
  } = {},
) {
  const sent: Uint8Array[] = []
  const provider: TonChainProvider = {
    async getAccount() {
      return { state: options.walletState ?? 'uninit', balance: options.balance ?? 10n ** 10n }
    },
    async getSeqno() {
      return options.seqno ?? 0
    },
    async sendBoc(boc) {
      sent.push(boc)
      return {}
    },
  }
  return { provider, sent }
}

export type TestWallet = { rpc: WalletRpc; reviews: Review[]; errors: unknown[] }

export function tonWallet(
  options: Partial<TonNamespaceOptions> & {
    approve?: boolean
    clock?: Clock
    allowDangerous?: string[]
  } = {},
): TestWallet {
  const reviews: Review[] = []
  const errors: unknown[] = []
  const { approve = true, clock = () => 1_700_000_000_000, allowDangerous, ...namespace } = options
  const rpc = createWalletRpc({
    ...(allowDangerous === undefined ? {} : { policy: { allowDangerous } }),
    namespaces: [ton({ keys: fixtureSigner(), ...namespace })],
    approve: (review) => {
      reviews.push(review)
      return approve
    },
    onError: (error) => errors.push(error),
    clock,
  })
  return { rpc, reviews, errors }
}

export const request = (method: string, params: unknown, id = 1) => ({
  id,
  jsonrpc: '2.0' as const,
  method,
  params,
})
