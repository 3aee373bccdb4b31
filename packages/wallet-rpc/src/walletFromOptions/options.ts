/**
 * The wallet the CLI's `handle` and `properties` serve, and the built-in wallet the conformance runner tests,
 * built from the same options: one room both may import (the CLI is an application nothing imports).
 */

/** Options shared by `handle` and `properties` (and the conformance/demo wallets). */
export type WalletCliOptions = {
  /** BIP-39 mnemonic for bip122 and eip155. */
  mnemonic: string | undefined
  /** TON's own 24-word mnemonic. */
  tonMnemonic: string | undefined
  tonWallet: 'v4r2' | 'v5r1'
  account: number
  approve: 'all' | 'none' | 'prompt'
  /** Fixed clock, Unix seconds. */
  now: number | undefined
  esplora: Map<string, string>
  /** `--ord CHAIN=URL`: the ord server (JSON API) that says what each output of that bip122 chain carries. */
  ord?: Map<string, string>
  toncenter: Map<string, string>
  rpc: Map<string, string>
  /** `--delegate eip155:ID=ADDRESS`: the EIP-7702 delegate atomic `wallet_sendCalls` batches use on that chain. */
  delegate?: Map<string, string>
}

export class UsageError extends Error {
  override name = 'UsageError'
}
