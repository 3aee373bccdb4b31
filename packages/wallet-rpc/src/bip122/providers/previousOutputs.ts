import { ProviderError } from '../../core/errors.js'
import { nextTurn, type Pause, timeSlicer } from '../../core/yielding.js'
import { parseTransaction, type Transaction, transactionId } from '../transaction/transaction.js'
import type { ChainProvider } from '../types.js'

type Outcome<T> = { value: T } | { error: unknown }
/** One fetch of several transactions: each one's outcome, by its place in the fetch. */
type Fetch = Promise<Outcome<Transaction>[]>

/**
 * Per provider: txid → its verified transaction (bounded, oldest dropped first; a failure is never kept), and
 * txid → the fetch that brings it, while one is under way (concurrent requests share it).
 */
const states = new WeakMap<
  ChainProvider,
  { verified: Map<string, Transaction>; fetching: Map<string, { fetch: Fetch; index: number }> }
>()
const maxCachedTransactions = 2000
/** `rawTransaction` calls in flight at once for a provider without `rawTransactions`. */
const fetchesAtOnce = 8

function stateOf(provider: ChainProvider) {
  let state = states.get(provider)
  if (state === undefined) {
    state = { verified: new Map(), fetching: new Map() }
    states.set(provider, state)
  }
  return state
}

/** The provider's transaction `txid`, kept only after it hashed to that txid. */
function verify(txid: string, raw: Uint8Array): Transaction {
  let tx: Transaction
  try {
    tx = parseTransaction(raw)
  } catch (error) {
    throw new ProviderError(`the chain provider's transaction ${txid} does not parse`, { cause: error })
  }
  if (transactionId(tx) !== txid)
    throw new ProviderError(`the chain provider returned another transaction for ${txid}`)
  return tx
}

const asProviderError = (error: unknown): unknown =>
  error instanceof ProviderError
    ? error
    : new ProviderError('the chain provider could not serve a transaction', { cause: error })

/**
 * The raw transactions, in order, each or its failure: the provider's batch when it has one (a failed batch
 * fails each of its transactions), else `rawTransaction` calls, a few in flight, each started after a
 * `pause()`: a provider answering from memory resolves at once, and thousands of calls would otherwise all
 * run in one turn.
 */
async function fetchRaw(
  provider: ChainProvider,
  txids: readonly string[],
  pause: Pause,
): Promise<Outcome<Uint8Array>[]> {
  if (provider.rawTransactions === undefined) {
    const outcomes: Outcome<Uint8Array>[] = new Array(txids.length)
    let next = 0
    const worker = async () => {
      for (let index = next++; index < txids.length; index = next++) {
        await pause()
        try {
          outcomes[index] = { value: await provider.rawTransaction(txids[index]!) }
        } catch (error) {
          outcomes[index] = { error: asProviderError(error) }
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(fetchesAtOnce, txids.length) }, worker))
    return outcomes
  }
  try {
    const raws = await provider.rawTransactions(txids)
    if (!Array.isArray(raws) || raws.length !== txids.length)
      throw new ProviderError(
        `the chain provider answered a batch of ${txids.length} transactions with another count`,
      )
    return raws.map((value) => ({ value }))
  } catch (error) {
    const failure = asProviderError(error)
    return txids.map(() => ({ error: failure }))
  }
}

/** Fetches `txids`, then parses and hash-checks each, a turn of the event loop every few milliseconds. */
async function fetchVerified(provider: ChainProvider, txids: readonly string[]): Fetch {
  const pause = timeSlicer()
  const raws = await fetchRaw(provider, txids, pause)
  const outcomes: Outcome<Transaction>[] = []
  for (const [index, txid] of txids.entries()) {
    await pause()
    const raw = raws[index]!
    if ('error' in raw) outcomes.push(raw)
    else {
      try {
        outcomes.push({ value: verify(txid, raw.value) })
      } catch (error) {
        outcomes.push({ error })
      }
    }
  }
  // A turn before the caller goes on: what follows (the request's checks, its review, its signing loop) may
  // run a slice of its own before its first pause, and two slices back to back are one long block.
  await nextTurn()
  return outcomes
}

/**
 * The transactions `txids` (display hex) from the provider, each fetched once and kept only after it hashed
 * to its txid: a provider cannot substitute another, and a transaction never changes, so the cache is safe.
 * The ones not cached are fetched together (`rawTransactions`, or `rawTransaction` a few at a time), then
 * parsed and hash-checked with turns of the event loop in between, so thousands of parents answered at once
 * (a local node, a cache) never make one long block. Concurrent callers share a fetch. Each transaction or its
 * failure, in the order asked, so a caller reports the first bad one.
 */
export async function verifiedTransactions(
  provider: ChainProvider,
  txids: readonly string[],
): Promise<Outcome<Transaction>[]> {
  const { verified, fetching } = stateOf(provider)
  const missing = [...new Set(txids)].filter((txid) => !verified.has(txid) && !fetching.has(txid))
  if (missing.length > 0) {
    const fetch = fetchVerified(provider, missing)
    for (const [index, txid] of missing.entries()) fetching.set(txid, { fetch, index })
    void fetch.then(
      (outcomes) => {
        for (const txid of missing) fetching.delete(txid)
        const kept = missing.flatMap((txid, index) => {
          const outcome = outcomes[index]!
          return 'value' in outcome ? [[txid, outcome.value] as const] : []
        })
        // The oldest out in one pass: a Map keeps deleted slots until it rehashes, so asking for its first
        // key after each delete walks every earlier hole (quadratic for a batch of thousands).
        let excess = verified.size + kept.length - maxCachedTransactions
        for (const txid of verified.keys()) {
          if (excess-- <= 0) break
          verified.delete(txid)
        }
        for (const [txid, tx] of kept.slice(-maxCachedTransactions)) verified.set(txid, tx)
      },
      () => {
        for (const txid of missing) fetching.delete(txid)
      },
    )
  }
  // Read now, before any await: the cache is bounded, and a large batch may push these out of it.
  const known = txids.map((txid) => verified.get(txid) ?? fetching.get(txid)!)
  const outcomes: Outcome<Transaction>[] = []
  for (const entry of known) {
    if (!('fetch' in entry)) outcomes.push({ value: entry })
    else outcomes.push((await entry.fetch)[entry.index]!)
  }
  return outcomes
}

/**
 * Outpoints' outputs (script and amount) as their own transactions state them, each or why it could not be
 * had, in order. Legacy and segwit v0 signatures commit to no amount or to their own input's only, so an
 * amount taken on a provider's (or a dapp's) word alone could turn most of a coin into fee (the 2020 segwit
 * fee attack).
 */
export async function verifiedPreviousOutputs(
  provider: ChainProvider,
  outpoints: readonly { txid: string; vout: number }[],
): Promise<Outcome<{ script: Uint8Array; value: bigint }>[]> {
  const transactions = await verifiedTransactions(
    provider,
    outpoints.map((outpoint) => outpoint.txid),
  )
  return outpoints.map(({ txid, vout }, index) => {
    const fetched = transactions[index]!
    if ('error' in fetched) return fetched
    const output = fetched.value.outputs[vout]
    return output === undefined
      ? { error: new ProviderError(`transaction ${txid} has no output ${vout}`) }
      : { value: output }
  })
}
