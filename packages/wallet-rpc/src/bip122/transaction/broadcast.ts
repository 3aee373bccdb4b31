import * as v from 'valibot'
import { ProviderError, WalletRpcError } from '../../core/errors.js'
import type { JsonValue } from '../../core/journal.js'
import type { RequestContext } from '../../core/namespace.js'
import { verifiedTransactions } from '../providers/previousOutputs.js'
import type { Bip122Wallet, ChainProvider } from '../types.js'
import { fromHex } from './bytes.js'
import { markSpent } from './reservations.js'
import { hashToTxid, parseTransaction } from './transaction.js'

/**
 * Sends a signed transaction exactly once (never retried: a retry after a timeout could be a second
 * broadcast the wallet cannot account for) and checks that the provider echoes the txid we computed.
 * Every failure is a ProviderError (-32603) carrying the provider's reason.
 */
export async function broadcastOnce(
  provider: ChainProvider,
  raw: Uint8Array,
  expectedTxid: string,
): Promise<string> {
  let reported: string
  try {
    reported = await provider.broadcast(raw)
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new ProviderError(`broadcast failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  if (typeof reported !== 'string' || reported.trim().toLowerCase() !== expectedTxid) {
    throw new ProviderError(
      `provider reported txid ${String(reported).slice(0, 80)}, expected ${expectedTxid}`,
    )
  }
  return expectedTxid
}

/**
 * What a bip122 method records in the request journal before it broadcasts (core/journal.ts): the signed
 * transaction, its txid, the account whose coins it spends, and the answer's PSBT when the method answers one.
 */
const signedSchema = v.object({
  raw: v.pipe(v.string(), v.regex(/^(?:[0-9a-f]{2})+$/)),
  txid: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  account: v.string(),
  psbt: v.optional(v.string()),
})

export type SignedBitcoinTransaction = v.InferOutput<typeof signedSchema>

/** How long coins a broadcast spent stay out of selection when the chain still lists them. */
export const spentCoinsHeldMs = 24 * 3600_000

/**
 * What sendTransfer and a broadcasting signPsbt give the request journal to replay them: the recorded
 * transaction sent again (a provider that refuses it while serving it by txid, hash-checked, has it: "already
 * known"), or only looked up; either way its coins are kept out of selection from then on.
 */
export function bitcoinSends<Result>(
  wallet: Bip122Wallet,
  answerOf: (signed: SignedBitcoinTransaction) => Result,
): {
  resend(context: RequestContext, recorded: JsonValue): Promise<Result>
  known(context: RequestContext, recorded: JsonValue): Promise<Result>
} {
  const providerOf = async (chainId: string) => {
    const { provider } = await wallet.chain(chainId)
    if (!provider) throw new ProviderError(`no chain provider configured for ${chainId}`)
    return provider
  }
  const sent = async (context: RequestContext, signed: SignedBitcoinTransaction) => {
    const account = await wallet.resolveAccount(context.chainId, signed.account)
    markSpent(account, spentOutpoints(fromHex(signed.raw)), context.clock() + spentCoinsHeldMs)
    wallet.afterBroadcast(context.chainId, signed.txid)
    return answerOf(signed)
  }
  return {
    async resend(context, recorded) {
      const signed = v.parse(signedSchema, recorded)
      const provider = await providerOf(context.chainId)
      try {
        await broadcastOnce(provider, fromHex(signed.raw), signed.txid)
      } catch (error) {
        const known = await served(provider, signed.txid).then(
          () => true,
          () => false,
        )
        if (!known) throw error
      }
      return sent(context, signed)
    },
    // A provider that does not serve the txid may just not have it yet: it cannot tell, so this throws.
    async known(context, recorded) {
      const signed = v.parse(signedSchema, recorded)
      await served(await providerOf(context.chainId), signed.txid)
      return sent(context, signed)
    },
  }
}

/** Resolves when the provider serves `txid`, hash-checked (in its mempool or mined); throws otherwise. */
async function served(provider: ChainProvider, txid: string): Promise<void> {
  const [outcome] = await verifiedTransactions(provider, [txid])
  if (outcome === undefined || 'error' in outcome) throw outcome?.error
}

/** The outpoints a serialized transaction spends, as `txid:vout`. */
export function spentOutpoints(raw: Uint8Array): string[] {
  return parseTransaction(raw).inputs.map((input) => `${hashToTxid(input.txid)}:${input.vout}`)
}
