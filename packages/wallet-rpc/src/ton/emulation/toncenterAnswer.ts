/**
 * toncenter's emulator answer (`POST /api/emulate/v1/emulateTonConnect` and `/emulateTrace`) read for one
 * wallet. The shape is ton-indexer's (toncenter/ton-indexer `ton-emulate-go/models/response.go`: `trace`,
 * `transactions` keyed by hash with `account_state_before`/`_after`, `actions`, `metadata`, `is_incomplete`);
 * the action details are ton-index-go's `index/models/actions.go` (as mytonwallet-org/mytonwallet
 * `src/api/chains/ton/toncenter/types.ts` reads them). Accounts are raw, upper-case hex.
 */
import type { TonEmulationResult } from '../types.js'
import {
  accountKey,
  boundedList,
  decimalsOf,
  EmulationAnswerError,
  emulationFailure,
  isRecord,
  maxTraceEntries,
  mentions,
  opcodeOf,
  phasesOf,
  symbolOf,
  type TonTransactionSummary,
  unsignedAmount,
  WalletTally,
} from './outcome.js'

/** Action kinds that move TON only (counted by the balances) or nothing the review lists. */
const tonOnlyActions = new Set([
  'ton_transfer',
  'call_contract',
  'contract_deploy',
  'change_dns',
  'delete_dns',
  'renew_dns',
  'auction_bid',
  'tick_tock',
  'election_deposit',
  'election_recover',
])

type Transaction = { hash: string; account: string; lt: bigint; raw: Record<string, unknown> }

/** The wallet's changes as toncenter's emulator shows them. Throws EmulationAnswerError for an answer it cannot read. */
export function readToncenterAnswer(answer: unknown, wallet: string, emulator: string): TonEmulationResult {
  if (!isRecord(answer) || !isRecord(answer.transactions)) {
    throw new EmulationAnswerError('the answer holds no transactions')
  }
  const entries = Object.entries(answer.transactions)
  if (entries.length > maxTraceEntries) {
    throw new EmulationAnswerError(`the trace holds more than ${maxTraceEntries} transactions`)
  }
  const transactions: Transaction[] = entries.map(([hash, raw]) => {
    const account = isRecord(raw) ? accountKey(raw.account) : undefined
    const lt = isRecord(raw) ? unsignedAmount(raw.lt) : undefined
    if (account === undefined || lt === undefined || !isRecord(raw)) {
      throw new EmulationAnswerError('a transaction has no account or lt')
    }
    return { hash, account, lt, raw }
  })
  transactions.sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0))

  const tally = new WalletTally(wallet)
  const failing = new Set<string>()
  for (const transaction of transactions) {
    const failure = emulationFailure(summary(transaction))
    if (failure !== undefined) {
      failing.add(transaction.hash)
      tally.failure(failure)
    }
  }

  const own = transactions.filter((transaction) => transaction.account === wallet)
  const before = balance(own[0]?.raw.account_state_before)
  const after = balance(own.at(-1)?.raw.account_state_after)
  if (before === undefined || after === undefined) {
    throw new EmulationAnswerError(
      own.length === 0 ? 'the trace has no transaction of the wallet' : 'the wallet balances are missing',
    )
  }

  const byHash = new Map(transactions.map((transaction) => [transaction.hash, transaction]))
  for (const action of boundedList(answer.actions, 'actions')) {
    if (!isRecord(action) || typeof action.type !== 'string') continue
    const details = isRecord(action.details) ? action.details : {}
    if (action.success === false) {
      const hashes = Array.isArray(action.transactions) ? action.transactions.slice(0, maxTraceEntries) : []
      if (!hashes.some((hash) => typeof hash === 'string' && failing.has(hash))) {
        const first = typeof hashes[0] === 'string' ? byHash.get(hashes[0]) : undefined
        tally.failure({
          account: first?.account ?? wallet,
          exitCode: undefined,
          bounced: false,
          reason: `${action.type.slice(0, 64)} failed`,
        })
      }
      continue
    }
    readAction(tally, action.type, details)
  }

  const metadata = metadataByKey(isRecord(answer.metadata) ? answer.metadata : {})
  for (const [master, info] of metadata) {
    const tokenInfo = Array.isArray(info.token_info) ? info.token_info.slice(0, 8) : []
    const jetton = tokenInfo.find(
      (entry): entry is Record<string, unknown> =>
        isRecord(entry) && entry.type === 'jetton_masters' && entry.valid !== false,
    )
    if (jetton === undefined) continue
    tally.jettonMetadata(
      master,
      symbolOf(jetton.symbol),
      decimalsOf(isRecord(jetton.extra) ? jetton.extra.decimals : undefined),
    )
  }
  return tally.result(emulator, after - before, answer.is_incomplete === true)
}

function readAction(tally: WalletTally, type: string, details: Record<string, unknown>): void {
  const amount = unsignedAmount(details.amount)
  switch (type) {
    case 'jetton_transfer':
      if (amount !== undefined)
        tally.jetton(
          accountKey(details.asset),
          accountKey(details.sender),
          accountKey(details.receiver),
          amount,
        )
      return
    case 'jetton_burn':
      if (amount !== undefined)
        tally.jetton(accountKey(details.asset), accountKey(details.owner), undefined, amount)
      return
    case 'jetton_mint':
      if (amount !== undefined)
        tally.jetton(accountKey(details.asset), undefined, accountKey(details.receiver), amount)
      return
    case 'jetton_swap':
      // The TON side of a swap (asset null) is in the balances already.
      for (const leg of [details.dex_incoming_transfer, details.dex_outgoing_transfer]) {
        if (!isRecord(leg)) continue
        const legAmount = unsignedAmount(leg.amount)
        if (legAmount !== undefined)
          tally.jetton(accountKey(leg.asset), accountKey(leg.source), accountKey(leg.destination), legAmount)
      }
      return
    case 'nft_transfer':
      tally.nft(
        accountKey(details.nft_item),
        accountKey(details.old_owner),
        accountKey(details.new_owner),
        accountKey(details.nft_collection),
        itemIndex(details.nft_item_index),
      )
      return
    case 'nft_mint':
      tally.nft(
        accountKey(details.nft_item),
        undefined,
        accountKey(details.owner),
        accountKey(details.nft_collection),
        itemIndex(details.nft_item_index),
      )
      return
    default:
      if (!tonOnlyActions.has(type) && mentions(details, tally.wallet)) tally.notRead(type.slice(0, 64))
  }
}

function itemIndex(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{1,78}$/.test(value) ? value : undefined
}

function balance(state: unknown): bigint | undefined {
  return isRecord(state) ? unsignedAmount(state.balance) : undefined
}

/** `metadata` keyed by normalized raw address; only the first entries are looked at. */
function metadataByKey(metadata: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>()
  for (const [key, value] of Object.entries(metadata).slice(0, maxTraceEntries)) {
    const account = accountKey(key)
    if (account !== undefined && isRecord(value)) found.set(account, value)
  }
  return found
}

function summary({ account, raw }: Transaction): TonTransactionSummary {
  const description = isRecord(raw.description) ? raw.description : {}
  const compute = isRecord(description.compute_ph) ? description.compute_ph : {}
  const action = isRecord(description.action) ? description.action : undefined
  const inMessage = isRecord(raw.in_msg) ? raw.in_msg : undefined
  // An external message (no source) is the wallet's own request: its opcode is no transfer's last hop.
  const internal = inMessage !== undefined && typeof inMessage.source === 'string'
  return {
    account,
    aborted: description.aborted === true,
    ...phasesOf(compute, action, compute.reason),
    inOpcode: internal ? opcodeOf(inMessage.opcode) : undefined,
    inBounce: internal && inMessage.bounce === true,
    bounced: isRecord(description.bounce) && description.bounce.type === 'ok',
  }
}
