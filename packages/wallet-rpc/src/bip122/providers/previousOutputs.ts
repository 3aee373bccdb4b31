import { ProviderError } from '../../core/errors.js'
import { parseTransaction, type Transaction, transactionId } from '../transaction/transaction.js'
import type { ChainProvider } from '../types.js'

/** Per provider, txid → its verified transaction; bounded, oldest dropped first. */
const caches = new WeakMap<ChainProvider, Map<string, Promise<Transaction>>>()
const maxCachedTransactions = 2000

/**
 * The transaction `txid` (display hex) from the provider, fetched once and kept only after it hashed to
 * that txid: a provider cannot substitute another, and a transaction never changes, so the cache is safe.
 */
export function verifiedTransaction(provider: ChainProvider, txid: string): Promise<Transaction> {
  let cache = caches.get(provider)
  if (cache === undefined) {
    cache = new Map()
    caches.set(provider, cache)
  }
  let entry = cache.get(txid)
  if (entry === undefined) {
    const owner = cache
    entry = (async () => {
      let tx: Transaction
      try {
        tx = parseTransaction(await provider.rawTransaction(txid))
      } catch (error) {
        if (error instanceof ProviderError) throw error
        throw new ProviderError(`the chain provider's transaction ${txid} does not parse`, { cause: error })
      }
      if (transactionId(tx) !== txid)
        throw new ProviderError(`the chain provider returned another transaction for ${txid}`)
      return tx
    })()
    entry.catch(() => owner.delete(txid)) // a failure is not remembered
    if (cache.size >= maxCachedTransactions) cache.delete(cache.keys().next().value!)
    cache.set(txid, entry)
  }
  return entry
}

/**
 * An outpoint's output (script and amount) as its own transaction states it. Legacy and segwit v0
 * signatures commit to no amount or to their own input's only, so an amount taken on a provider's (or a
 * dapp's) word alone could turn most of a coin into fee (the 2020 segwit fee attack).
 */
export async function verifiedPreviousOutput(
  provider: ChainProvider,
  txid: string,
  vout: number,
): Promise<{ script: Uint8Array; value: bigint }> {
  const output = (await verifiedTransaction(provider, txid)).outputs[vout]
  if (output === undefined) throw new ProviderError(`transaction ${txid} has no output ${vout}`)
  return output
}
