import { beginFastCell, type FastCell, fastBoc } from './cells.js'
import type { TransferRequest, WalletContract } from './contracts.js'
import type { Address } from './tonCore.js'

/**
 * An internal message as @ton/core's `internal({ to, value, bounce, body })` makes it: no StateInit, no
 * extra currencies (a message with either goes through @ton/core).
 */
export type FastMessage = {
  to: Address
  value: bigint
  bounce: boolean
  body: FastCell | undefined
}

let emptyCell: FastCell | undefined

export type FastTransferRequest = Omit<TransferRequest, 'messages'> & { messages: readonly FastMessage[] }

/**
 * `ton_sendMessage`'s signing path on FastCells (cells.ts): the same cells as `WalletContract`'s
 * `unsignedTransfer` / `signedTransfer` / `externalMessage` on @ton/core, without @ton/core's per-cell cost.
 * It covers what wallets send nearly always: internal messages without a StateInit or extra currencies, to
 * a deployed wallet, bodies of ordinary cells. For anything else `fastUnsignedTransfer` answers undefined and
 * the caller uses `WalletContract`. `test/ton/transfer.property.test.ts` proves the same BoC on random transfers.
 */
export function fastUnsignedTransfer(
  contract: WalletContract,
  request: FastTransferRequest,
): FastCell | undefined {
  const messages: FastCell[] = []
  for (const message of request.messages) {
    const cell = messageCell(message)
    if (cell === undefined) return undefined
    messages.push(cell)
  }
  // The checks @ton/core's path makes (wallet.ts), so both refuse alike.
  const { version, walletId } = contract
  if (messages.length < 1 || messages.length > contract.maxMessages) return undefined
  if (
    ![request.seqno, request.validUntil].every(
      (value) => Number.isInteger(value) && value >= 0 && value <= 0xffffffff,
    )
  )
    return undefined
  if (version === 'v4r2') {
    // wallet_id:uint32 valid_until:uint32 seqno:uint32 op:uint8 (0 = send) (mode:uint8 ^MessageRelaxed)*
    const header = beginFastCell()
      .uint(walletId, 32)
      .uint(request.validUntil, 32)
      .uint(request.seqno, 32)
      .uint(0, 8)
    for (const message of messages) header.uint(request.sendMode, 8).ref(message)
    return header.end()
  }
  if ((request.sendMode & 2) === 0) return undefined
  // out_list_empty$_ = OutList 0; out_list$_ prev:^(OutList n) action_send_msg#0ec3c86d mode:uint8 out_msg:^MessageRelaxed
  emptyCell ??= beginFastCell().end()
  let outList = emptyCell
  for (const message of messages) {
    outList = beginFastCell().ref(outList).uint(0x0ec3c86d, 32).uint(request.sendMode, 8).ref(message).end()
  }
  // "sign":uint32 wallet_id:int32 valid_until:uint32 seqno:uint32 out_actions:(Maybe ^OutList) has_other_actions:bool
  return beginFastCell()
    .uint(0x7369676e, 32)
    .uint(walletId, 32)
    .uint(request.validUntil, 32)
    .uint(request.seqno, 32)
    .bit(1)
    .ref(outList)
    .bit(0)
    .end()
}

export type FastExternalMessage = {
  boc: Uint8Array
  /** Hash of the external message cell. */
  hash: Uint8Array
  /** TEP-467 normalized hash (wallet.ts `normalizedMessageHash`). */
  normalizedHash(): Uint8Array
}

/** The signed body (v4R2: signature first, v5R1: last) in an external-in message, no StateInit. */
export function fastExternalMessage(
  contract: WalletContract,
  unsigned: FastCell,
  signature: Uint8Array,
): FastExternalMessage {
  if (signature.length !== 64) throw new TypeError('Ed25519 signature must be 64 bytes')
  const body =
    contract.version === 'v4r2'
      ? beginFastCell().bytes(signature).slice(unsigned).end()
      : beginFastCell().slice(unsigned).bytes(signature).end()
  // ext_in_msg_info$10 src:addr_none dest:MsgAddressInt import_fee:Grams, init: nothing, then the body.
  const message = externalHeader(contract.address).bit(0)
  const inline = message.availableBits - 1 >= body.bits && message.refCount + body.refs.length <= 4
  const cell = (inline ? message.bit(0).slice(body) : message.bit(1).ref(body)).end()
  return {
    boc: fastBoc(cell),
    hash: cell.hash,
    normalizedHash: () => externalHeader(contract.address).bit(0).bit(1).ref(body).end().hash,
  }
}

const externalHeader = (destination: Address) =>
  beginFastCell().uint(0b10, 2).address(null).address(destination).coins(0n)

/** int_msg_info$0 … as @ton/core's `storeMessageRelaxed` writes `internal(…)`, or undefined for an exotic body. */
function messageCell({ to, value, bounce, body }: FastMessage): FastCell | undefined {
  if (body !== undefined && !body.allOrdinary) return undefined
  const cell = beginFastCell()
    .bit(0)
    .bit(1) // ihr_disabled
    .bit(bounce)
    .bit(0) // bounced
    .address(null)
    .address(to)
    .coins(value)
    .bit(0) // no extra currencies
    .zeros(4 + 4 + 64 + 32) // ihr_fee 0, fwd_fee 0, created_lt 0, created_at 0
    .bit(0) // no StateInit
  if (body === undefined) return cell.bit(0).end() // @ton/core's empty body, inline
  const inline = cell.availableBits - 1 >= body.bits && cell.refCount + body.refs.length <= 4
  return (inline ? cell.bit(0).slice(body) : cell.bit(1).ref(body)).end()
}
