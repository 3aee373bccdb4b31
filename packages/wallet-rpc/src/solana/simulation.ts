import { InvalidParamsError, PolicyRefusedError, ProviderError } from '../core/errors.js'
import type { RequestContext } from '../core/namespace.js'
import { readProvider } from '../core/readProvider.js'
import { group, item, type ReviewItem, type ReviewWarning } from '../core/review.js'
import type { SolanaWallet } from './context.js'
import { addressOf, encodeBase58, readU64Le } from './encoding.js'
import { formatLamports, formatUnits } from './programs.js'
import type { SolanaChainProvider } from './provider.js'
import type { PreparedTransaction } from './request.js'
import { accountRefs, encodeTransaction } from './transaction.js'

/** What a provider adds to a transaction's review. */
export type ChainFacts = {
  /** Every account's address in index order, lookup-table ones resolved. */
  resolved: string[]
  items: ReviewItem[]
  warnings: ReviewWarning[]
}

/**
 * With a provider for the request's chain: refuses an expired blockhash, or a durable nonce its nonce account
 * no longer holds, resolves lookup tables, simulates, and shows each of our accounts' SOL and token balance changes. A failing
 * simulation is -32603 with the program's error. Without a provider: undefined (the review shows what the
 * bytes say, lookup-table accounts by table and index).
 */
export function chainFacts(
  context: RequestContext,
  wallet: SolanaWallet,
  prepared: PreparedTransaction,
): Promise<ChainFacts> | undefined {
  const provider = wallet.providers[context.chainId]
  // Synchronous without a provider: signing-only requests take no extra turn.
  return provider === undefined ? undefined : readChainFacts(provider, wallet, prepared)
}

async function readChainFacts(
  provider: SolanaChainProvider,
  wallet: SolanaWallet,
  prepared: PreparedTransaction,
): Promise<ChainFacts> {
  const { message } = prepared.transaction
  const blockhash = encodeBase58(message.recentBlockhash)
  const nonceAccount = durableNonceAccount(prepared)
  if (nonceAccount === undefined) {
    if (!(await readProvider('isBlockhashValid', () => provider.isBlockhashValid(blockhash)))) {
      throw new PolicyRefusedError(
        `the recent blockhash ${blockhash} has expired; ask the app for a new transaction`,
        { rule: 'solana.blockhash_expired' },
      )
    }
  } else {
    // A durable nonce never expires by age, only when the nonce account moves on (or is closed).
    const current = await readProvider('getNonce', () => provider.getNonce(nonceAccount))
    if (current !== blockhash) {
      throw new PolicyRefusedError(
        `the durable nonce ${blockhash} is no longer the value of nonce account ${nonceAccount}; ask the app for a new transaction`,
        { rule: 'solana.nonce_expired' },
      )
    }
  }
  const resolved = await resolveAccounts(provider, prepared)
  const ours = [...wallet.signers.keys()]
  const [balances, tokens] = await readProvider('balances', () =>
    Promise.all([
      provider.getBalances(ours),
      Promise.all(ours.map((owner) => provider.getTokenBalances(owner))),
    ]),
  )
  const tokenAccounts = tokens.flat()
  const watched = [...ours, ...tokenAccounts.map((token) => token.account)]
  const simulation = await readProvider('simulateTransaction', () =>
    provider.simulate(encodeTransaction(prepared.transaction), watched),
  )
  if (simulation.error !== undefined) {
    throw new ProviderError(`simulation failed: ${simulation.error}`)
  }
  const changes: ReviewItem[] = []
  ours.forEach((address, index) => {
    const before = balances[index] ?? 0n
    const after = simulation.accounts[index]?.lamports ?? 0n
    if (after !== before) changes.push(item(`${address} (you) SOL`, signed(after - before, formatLamports)))
  })
  tokenAccounts.forEach((token, index) => {
    const data = simulation.accounts[ours.length + index]?.data
    const after = data !== undefined && data.length >= 72 ? readU64Le(data, 64) : 0n
    if (after !== token.amount) {
      changes.push(
        item(
          `token ${token.mint} in ${token.account}`,
          signed(after - token.amount, (amount) => formatUnits(amount, token.decimals)),
        ),
      )
    }
  })
  const items: ReviewItem[] = [
    group('Simulated balance changes', changes.length > 0 ? changes : [item('Your accounts', 'no change')]),
  ]
  if (simulation.unitsConsumed !== undefined)
    items.push(item('Compute units (simulated)', String(simulation.unitsConsumed)))
  return { resolved, items, warnings: [] }
}

function signed(delta: bigint, format: (amount: bigint) => string): string {
  return delta > 0n ? `+${format(delta)}` : `-${format(-delta)}`
}

/** The nonce account when the first instruction is System `AdvanceNonceAccount` (a durable-nonce transaction). */
function durableNonceAccount(prepared: PreparedTransaction): string | undefined {
  const { message } = prepared.transaction
  const first = message.instructions[0]
  if (first === undefined) return undefined
  const program = addressOf(message.staticAccountKeys[first.programIdIndex]!)
  const isAdvance =
    program === '11111111111111111111111111111111' &&
    first.data.length === 4 &&
    first.data[0] === 4 &&
    first.data[1] === 0 &&
    first.data[2] === 0 &&
    first.data[3] === 0
  const account = first.accountIndexes[0]
  if (!isAdvance || account === undefined) return undefined
  const key = message.staticAccountKeys[account]
  // A nonce account loaded through a lookup table is not something the runtime accepts; treat as no nonce.
  return key === undefined ? undefined : addressOf(key)
}

async function resolveAccounts(
  provider: SolanaChainProvider,
  prepared: PreparedTransaction,
): Promise<string[]> {
  const { message } = prepared.transaction
  const tables = new Map<string, string[]>()
  for (const lookup of message.addressTableLookups) {
    const address = addressOf(lookup.accountKey)
    if (!tables.has(address))
      tables.set(address, await readProvider('getLookupTable', () => provider.getLookupTable(address)))
  }
  // Each reference must exist in its table as the provider reads it: -32602 at the reference's path otherwise.
  message.addressTableLookups.forEach((lookup, position) => {
    const size = tables.get(addressOf(lookup.accountKey))?.length ?? 0
    for (const list of ['writableIndexes', 'readonlyIndexes'] as const) {
      lookup[list].forEach((entry, at) => {
        if (entry >= size) {
          throw new InvalidParamsError(
            `lookup table ${addressOf(lookup.accountKey)} has ${size} entries, no entry ${entry}`,
            { path: `${prepared.path}.message.addressTableLookups.${position}.${list}.${at}` },
          )
        }
      })
    }
  })
  return accountRefs(message).map((ref) =>
    ref instanceof Uint8Array ? addressOf(ref) : tables.get(addressOf(ref.table))![ref.index]!,
  )
}
