import { ed25519 } from '@noble/curves/ed25519.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import { decodeBase64, decodeTransaction, encodeBase64, encodeShortVec } from 'wallet-rpc/solana'
import type { SolanaRoute } from '../model.js'
import { buildTokenTransfer, latestBlockhash, runtimeRpc } from '../solanaOption.js'
import {
  type Failure,
  firstLine,
  type LiveChain,
  type LiveChainOptions,
  type SignedTransfer,
  sleep,
} from './chain.js'

/** Live mode on the Solana runtime: SPL token payments to the treasury, settlements signed by its Ed25519 key. */
export class SolanaLiveChain implements LiveChain<SolanaRoute> {
  constructor(private readonly options: LiveChainOptions) {}

  /**
   * The Solana option's transaction was submitted by the sandbox itself and judged at confirm (checkAndSubmit):
   * confirmed on the runtime, and its own token balance changes credit the treasury with exactly the amount.
   */
  async check(): Promise<Failure | undefined> {
    return undefined
  }

  /** Solana's base58 is case-sensitive. */
  sameAsset(route: SolanaRoute, asset: string): boolean {
    return asset === route.asset
  }

  async signTransfer(route: SolanaRoute, destination: string, amount: bigint): Promise<SignedTransfer> {
    const { option } = route
    const { treasury } = this.options
    const payee = base58.decode(destination)
    if (payee.length !== 32) throw new Error(`destination ${destination} is not a Solana key`)
    const { message } = buildTokenTransfer({
      payer: treasury.solanaKey,
      payee,
      mint: base58.decode(option.mint),
      amount,
      decimals: option.decimals,
      recentBlockhash: await latestBlockhash(option.rpcUrl),
    })
    const signature = ed25519.sign(message, Buffer.from(treasury.keys.solanaSeed.slice(2), 'hex'))
    const wire = concatBytes(encodeShortVec(1), signature, message)
    return { wire: encodeBase64(wire), txHash: base58.encode(signature) }
  }

  /**
   * Sends (again, after a restart) and asks the runtime about the signature: true once it executed and is
   * confirmed; why not when it failed on chain, or when it can no longer land (its blockhash expired and the
   * signature is unknown); 'pending' otherwise. A send that errors proves nothing (the node may have taken it
   * before the reply was lost), so only those answers let the caller drop the signed bytes and sign anew.
   */
  async broadcast(
    route: SolanaRoute,
    { wire, txHash: signature }: SignedTransfer,
  ): Promise<true | 'pending' | string> {
    const { rpcUrl } = route.option
    let sendError: string | undefined
    try {
      await runtimeRpc(rpcUrl, 'sendTransaction', [wire, { encoding: 'base64' }])
    } catch (error) {
      // Refused, already executed (a broadcast before a restart), or the reply was lost: the status decides.
      sendError = firstLine(error)
      this.options.log(`broadcast ${signature}: ${sendError}`)
    }
    const blockhash = base58.encode(
      decodeTransaction(decodeBase64(wire, 'settling.wire'), 'settling.wire').message.recentBlockhash,
    )
    const deadline = Date.now() + this.options.confirmTimeoutMs
    for (;;) {
      try {
        // The blockhash first: expired before a status that still says nothing means it never can land.
        const valid = (await runtimeRpc(rpcUrl, 'isBlockhashValid', [
          blockhash,
          { commitment: 'processed' },
        ])) as {
          value?: unknown
        }
        const statuses = (await runtimeRpc(rpcUrl, 'getSignatureStatuses', [
          [signature],
          { searchTransactionHistory: true },
        ])) as { value?: ({ err?: unknown; confirmationStatus?: string | null } | null)[] }
        const status = statuses.value?.[0]
        if (status !== null && status !== undefined) {
          if (status.err !== null && status.err !== undefined)
            return `failed on chain: ${JSON.stringify(status.err)}`
          if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
            return true
        } else if (valid.value === false) {
          return `never landed, its blockhash expired${sendError === undefined ? '' : ` (${sendError})`}`
        }
      } catch (error) {
        // The runtime did not answer: nothing is known; ask again until the deadline.
        this.options.log(`status of ${signature}: ${firstLine(error)}`)
      }
      if (this.options.stopped() || Date.now() + this.options.pollMs > deadline) return 'pending'
      await sleep(this.options.pollMs)
    }
  }
}
