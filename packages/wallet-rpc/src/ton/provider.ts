/**
 * What the ton namespace needs from a chain: the wallet's state and seqno before signing, and a way to
 * broadcast the signed external message. `toncenter()` is the HTTP implementation; `startTonSandbox()`
 * (src/devchains/tonSandbox.ts) puts the @ton/sandbox emulator behind the same interface.
 */
export type TonAccountState = 'active' | 'uninit' | 'frozen' | 'nonexist'

export type TonAccount = {
  state: TonAccountState
  /** Nanotons. */
  balance: bigint
}

export type TonChainProvider = {
  /** `address` is the raw form `<workchain>:<hex>`. */
  getAccount(address: string): Promise<TonAccount>
  /** The wallet contract's `seqno` get-method; only asked for active accounts. */
  getSeqno(address: string): Promise<number>
  /**
   * Broadcasts one external message BoC, once (never retried). `hash`, when the chain reports one, is the
   * hex hash of the message cell or its TEP-467 normalized hash; the namespace checks it against its own.
   */
  sendBoc(boc: Uint8Array): Promise<{ hash?: string }>
}
