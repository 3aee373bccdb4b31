/**
 * How the WalletKit adapter pays a `walletPay` option on a chain whose transaction it cannot build itself: a
 * namespace provides one (`solanaConnectPayments()` in `wallet-rpc/solana`), the wallet passes it to
 * `attachWalletKit({ payments })`. The payment still goes through the wallet's own method (`method`), with
 * that method's review, simulation, policy and broadcast check.
 */
export type ConnectPayments = {
  /** The CAIP-2 namespace whose options it pays, e.g. `solana`. */
  namespace: string
  /** The wallet method the payment request goes through, e.g. `solana_signAndSendTransaction`. */
  method: string
  /**
   * The asset's decimals (read from the chain) and symbol, or why this option cannot be paid (an `amount`
   * of minor units the chain's transfer cannot carry, too). `asset` and `recipient` are CAIP-19 and CAIP-10
   * ids on `chainId`, already parsed. Never throws.
   */
  describe(option: {
    chainId: string
    asset: string
    recipient: string
    amount: bigint
  }): Promise<{ decimals: number; symbol: string | undefined } | { unpayable: string }>
  /** The params of `method` paying `amount` minor units from `payer`, built now (a fresh blockhash). */
  request(payment: {
    chainId: string
    asset: string
    recipient: string
    amount: bigint
    payer: string
  }): Promise<unknown>
  /** The transaction id in the method's answer (what `walletPay` returns as `txid`). */
  txid(result: unknown): string | undefined
  /**
   * Waits until the chain shows the payment made (eip155: a successful receipt with the token's `Transfer` log)
   * and answers undefined, or why it is not reported as paid. Without it the payment is reported once sent.
   */
  settled?(payment: {
    chainId: string
    asset: string
    recipient: string
    amount: bigint
    payer: string
    txid: string
  }): Promise<string | undefined>
}
