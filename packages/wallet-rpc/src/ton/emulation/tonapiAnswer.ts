/**
 * tonapi's `POST /v2/wallet/emulate` answer (`MessageConsequences { trace, risk, event }`, tonkeeper/opentonapi
 * `api/openapi.yml`) read for one wallet. The event's actions say what moved; `event.extra` is the TON change
 * the actions do not show (opentonapi `pkg/bath/bath.go` `Extra`: the account's net TON change minus what each
 * action contributes, `pkg/bath/actions.go` `ContributeToExtra`), so the wallet's net TON change is `extra` plus
 * the same contributions. Amounts are JSON numbers (int64): read after `quoteLongIntegers`.
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
  signedAmount,
  symbolOf,
  type TonTransactionSummary,
  unsignedAmount,
  WalletTally,
} from './outcome.js'

type Json = Record<string, unknown>

/** Kinds whose only effect on the wallet is TON, which `extra` plus the contributions count. */
const tonOnlyActions = new Set([
  'TonTransfer',
  'SmartContractExec',
  'ContractDeploy',
  'AuctionBid',
  'Purchase',
  'Subscribe',
  'UnSubscribe',
  'ElectionsDepositStake',
  'ElectionsRecoverStake',
  'GasRelay',
  'DomainRenew',
  'AddExtension',
  'RemoveExtension',
  'SetSignatureAllowedAction',
])

const address = (account: unknown): string | undefined =>
  isRecord(account) ? accountKey(account.address) : undefined

/** A Price (`{ currency_type, value }`) in nanotons when it is TON, else 0. */
function nativePrice(price: unknown): bigint {
  return isRecord(price) && price.currency_type === 'native' ? (unsignedAmount(price.value) ?? 0n) : 0n
}

/** `amount` moving from `from` to `to`, seen from `wallet`. */
function direction(wallet: string, from: string | undefined, to: string | undefined, amount: bigint): bigint {
  if (from === to) return 0n
  return from === wallet ? -amount : to === wallet ? amount : 0n
}

/** What a successful action adds to the wallet's TON, as opentonapi's ContributeToExtra counts it. */
function tonContribution(wallet: string, type: string, body: Json): bigint {
  switch (type) {
    case 'TonTransfer':
      return direction(
        wallet,
        address(body.sender),
        address(body.recipient),
        unsignedAmount(body.amount) ?? 0n,
      )
    case 'SmartContractExec':
      return direction(
        wallet,
        address(body.executor),
        address(body.contract),
        unsignedAmount(body.gram_attached ?? body.ton_attached) ?? 0n,
      )
    case 'JettonSwap': {
      if (address(body.user_wallet) !== wallet) return 0n
      const paid = unsignedAmount(body.gram_in ?? body.ton_in) ?? 0n
      return (unsignedAmount(body.gram_out ?? body.ton_out) ?? 0n) - paid
    }
    case 'NftPurchase':
      return direction(wallet, address(body.buyer), address(body.seller), nativePrice(body.amount))
    case 'AuctionBid':
      return direction(wallet, address(body.bidder), address(body.auction), nativePrice(body.amount))
    case 'Purchase':
      return direction(wallet, address(body.source), address(body.destination), nativePrice(body.amount))
    case 'Subscribe':
      return direction(wallet, address(body.subscriber), address(body.beneficiary), nativePrice(body.price))
    case 'DepositStake':
      return direction(wallet, address(body.staker), address(body.pool), unsignedAmount(body.amount) ?? 0n)
    case 'WithdrawStake':
      return direction(wallet, address(body.pool), address(body.staker), unsignedAmount(body.amount) ?? 0n)
    case 'ElectionsDepositStake':
      return direction(wallet, address(body.staker), undefined, unsignedAmount(body.amount) ?? 0n)
    case 'ElectionsRecoverStake':
      return direction(wallet, undefined, address(body.staker), unsignedAmount(body.amount) ?? 0n)
    case 'GasRelay':
      return address(body.relayer) === wallet ? -(unsignedAmount(body.amount) ?? 0n) : 0n
    case 'LiquidityDeposit': {
      if (address(body.from) !== wallet) return 0n
      const tokens = Array.isArray(body.tokens) ? body.tokens.slice(0, 16) : []
      return -tokens.reduce<bigint>(
        (sum, token) => sum + (isRecord(token) ? nativePrice(token.price) : 0n),
        0n,
      )
    }
    default:
      return 0n
  }
}

/** A JettonPreview's master, and what it says of itself. */
function jettonOf(tally: WalletTally, preview: unknown): string | undefined {
  if (!isRecord(preview)) return undefined
  const master = accountKey(preview.address)
  if (master !== undefined)
    tally.jettonMetadata(master, symbolOf(preview.symbol), decimalsOf(preview.decimals))
  return master
}

function readMoves(tally: WalletTally, type: string, body: Json): void {
  const amount = unsignedAmount(body.amount)
  switch (type) {
    case 'JettonTransfer':
      if (amount !== undefined)
        tally.jetton(jettonOf(tally, body.jetton), address(body.sender), address(body.recipient), amount)
      return
    case 'JettonBurn':
      if (amount !== undefined)
        tally.jetton(jettonOf(tally, body.jetton), address(body.sender), undefined, amount)
      return
    case 'JettonMint':
      if (amount !== undefined)
        tally.jetton(jettonOf(tally, body.jetton), undefined, address(body.recipient), amount)
      return
    case 'JettonSwap': {
      const user = address(body.user_wallet)
      const paid = unsignedAmount(body.amount_in)
      const received = unsignedAmount(body.amount_out)
      // A side without a jetton master is TON, which the TON change counts.
      if (paid !== undefined) tally.jetton(jettonOf(tally, body.jetton_master_in), user, undefined, paid)
      if (received !== undefined)
        tally.jetton(jettonOf(tally, body.jetton_master_out), undefined, user, received)
      return
    }
    case 'NftItemTransfer':
      tally.nft(accountKey(body.nft), address(body.sender), address(body.recipient), undefined, undefined)
      return
    case 'NftPurchase': {
      const nft = isRecord(body.nft) ? body.nft : {}
      const index = unsignedAmount(nft.index)
      tally.nft(
        accountKey(nft.address),
        address(body.seller),
        address(body.buyer),
        isRecord(nft.collection) ? accountKey(nft.collection.address) : undefined,
        index === undefined ? undefined : index.toString(),
      )
      return
    }
    default:
      if (!tonOnlyActions.has(type) && mentions(body, tally.wallet)) tally.notRead(type.slice(0, 64))
  }
}

/** The wallet's changes as tonapi's emulator shows them. Throws EmulationAnswerError for an answer it cannot read. */
export function readTonapiAnswer(answer: unknown, wallet: string, emulator: string): TonEmulationResult {
  const event = isRecord(answer) ? answer.event : undefined
  if (!isRecord(event)) throw new EmulationAnswerError('the answer holds no event')
  const account = address(event.account)
  if (account !== undefined && account !== wallet) {
    throw new EmulationAnswerError('the event is about another account')
  }
  const extra = signedAmount(event.extra)
  if (extra === undefined) throw new EmulationAnswerError('the event has no extra')
  const transactions = traceTransactions(isRecord(answer) ? answer.trace : undefined)

  const tally = new WalletTally(wallet)
  let ton = extra
  for (const action of boundedList(event.actions, 'actions')) {
    if (!isRecord(action) || typeof action.type !== 'string') continue
    const type = action.type
    const body = isRecord(action[type]) ? (action[type] as Json) : {}
    if (action.status === 'failed') {
      tally.failure(failedAction(transactions, type, action.base_transactions, body, wallet))
      continue
    }
    ton += tonContribution(wallet, type, body)
    readMoves(tally, type, body)
  }
  return tally.result(emulator, ton, false)
}

/** A failed action, with the account and exit code of the transaction that failed under it when the trace has one. */
function failedAction(
  transactions: Map<string, TonTransactionSummary>,
  type: string,
  hashes: unknown,
  body: Json,
  wallet: string,
) {
  const list = Array.isArray(hashes) ? hashes.slice(0, maxTraceEntries) : []
  for (const hash of list) {
    const summary = typeof hash === 'string' ? transactions.get(hash) : undefined
    const failure = summary === undefined ? undefined : emulationFailure(summary)
    if (failure !== undefined) return { ...failure, reason: `${type.slice(0, 64)} failed: ${failure.reason}` }
  }
  const counterparty = [body.recipient, body.contract, body.pool, body.auction, body.destination]
    .map(address)
    .find((key) => key !== undefined && key !== wallet)
  return {
    account: counterparty ?? wallet,
    exitCode: undefined,
    bounced: false,
    reason: `${type.slice(0, 64)} failed`,
  }
}

/** The trace's transactions by hash, walked breadth first up to `maxTraceEntries`. */
function traceTransactions(trace: unknown): Map<string, TonTransactionSummary> {
  const found = new Map<string, TonTransactionSummary>()
  const queue: unknown[] = [trace]
  for (let at = 0; at < queue.length; at++) {
    if (at >= maxTraceEntries)
      throw new EmulationAnswerError(`the trace holds more than ${maxTraceEntries} transactions`)
    const node = queue[at]
    if (!isRecord(node)) continue
    const transaction = node.transaction
    if (isRecord(transaction) && typeof transaction.hash === 'string') {
      const summary = summaryOf(transaction)
      if (summary !== undefined) found.set(transaction.hash, summary)
    }
    if (Array.isArray(node.children)) queue.push(...node.children.slice(0, maxTraceEntries))
  }
  return found
}

function summaryOf(transaction: Json): TonTransactionSummary | undefined {
  const account = address(transaction.account)
  if (account === undefined) return undefined
  const compute = isRecord(transaction.compute_phase) ? transaction.compute_phase : {}
  const action = isRecord(transaction.action_phase) ? transaction.action_phase : undefined
  const inMessage = isRecord(transaction.in_msg) ? transaction.in_msg : undefined
  const internal = inMessage?.msg_type === 'int_msg'
  return {
    account,
    aborted: transaction.aborted === true,
    ...phasesOf(compute, action, compute.skip_reason),
    inOpcode: internal ? opcodeOf(inMessage?.op_code) : undefined,
    inBounce: internal && inMessage?.bounce === true,
    bounced: transaction.bounce_phase === 'TrPhaseBounceOk',
  }
}
