// TON `ton_sendMessage`: the returned external-in message goes to the session wallet, is signed by the
// session's key, its expiry respects `valid_until`, and its out-actions equal the requested messages
// (destination, amount, bounce from the address tag, payload, stateInit, send mode 3), in order.
import { ed25519 } from '@noble/curves/ed25519.js'
import { firstParam, sessionWallet } from './internal/ton.js'
import {
  Address,
  assertBufferGlobal,
  beginCell,
  Cell,
  loadMessage,
  loadMessageRelaxed,
  loadOutList,
  type MessageRelaxed,
  type StateInit,
  storeStateInit,
} from './internal/tonCore.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type TonMessageRequest = {
  address: string
  amount: string | number
  payload?: string
  stateInit?: string
}
export type TonSendMessageParams = {
  valid_until?: number
  /** AppKit's camelCase spelling of `valid_until`; the signed expiry must respect either. */
  validUntil?: number
  from?: string
  messages: TonMessageRequest[]
}

export type VerifyTonSendMessageOptions = {
  /** `sessionProperties.ton_getPublicKey` (hex). */
  publicKey: string
  /** `sessionProperties.ton_getStateInit` (base64 BoC). */
  stateInit: string
  /** Unix seconds; defaults to the system clock. The signed expiry must lie after it. */
  now?: number
  /** The wallet's current seqno, when the dapp read it from the chain. */
  seqno?: number
}

type SignedTransfer = {
  walletId: number
  validUntil: number
  seqno: number
  actions: { mode: number; message: MessageRelaxed }[]
}

/** Checks a wallet's `ton_sendMessage` answer (base64 BoC of the external message). Never throws. */
export function verifyTonSendMessage(
  params: unknown,
  result: unknown,
  options: VerifyTonSendMessageOptions,
): VerifyResult {
  return guarded(() => {
    assertBufferGlobal()
    const request = firstParam(params)
    if (!isRecord(options)) fail('session properties are needed')
    const wallet = sessionWallet(options.stateInit, options.publicKey)
    if (typeof result !== 'string' || result.length === 0) fail('result is not a base64 BoC string')
    let root: Cell
    try {
      root = Cell.fromBase64(result)
    } catch {
      return fail('result is not a BoC')
    }
    const external = loadMessage(root.beginParse())
    if (external.info.type !== 'external-in') fail('result is not an external-in message')
    if (!external.info.dest.equals(wallet.address))
      fail('the external message is not addressed to the session wallet')
    if (external.init) {
      if (!cellOfStateInit(external.init).equals(wallet.stateInit))
        fail('the attached StateInit is not the session’s')
    }
    if (request.from !== undefined) {
      if (typeof request.from !== 'string' || !Address.parse(request.from).equals(wallet.address)) {
        fail('the request’s `from` is not the session wallet')
      }
    }
    if (wallet.version === 'v5beta') fail('messages of a W5 beta wallet are not checked here (v4R2, v5R1)')
    const transfer =
      wallet.version === 'v4r2'
        ? readV4(external.body, wallet.publicKey)
        : readV5(external.body, wallet.publicKey)
    if (transfer.walletId !== wallet.walletId)
      fail(`wallet id ${transfer.walletId} is not the session wallet’s`)
    if (external.init && transfer.seqno !== wallet.seqno)
      fail('a deploying message must carry the initial seqno')
    if (options.seqno !== undefined && transfer.seqno !== options.seqno) {
      fail(`seqno ${transfer.seqno} is not the wallet’s ${options.seqno}`)
    }
    const now = options.now ?? Math.floor(Date.now() / 1000)
    if (transfer.validUntil <= now) fail(`the message expired at ${transfer.validUntil}`)
    for (const key of ['valid_until', 'validUntil'] as const) {
      const requested = request[key]
      if (requested === undefined) continue
      if (typeof requested !== 'number' || !Number.isFinite(requested)) fail(`${key} is not a number`)
      const limit = requested > 1e10 ? Math.floor(requested / 1000) : requested
      if (transfer.validUntil > limit)
        fail(`signed valid until ${transfer.validUntil}, after the requested ${limit}`)
    }
    checkMessages(request.messages, transfer.actions)
  })
}

function readV4(body: Cell, publicKey: Uint8Array): SignedTransfer {
  const slice = body.beginParse()
  const signature = slice.loadBuffer(64)
  const signing = slice.asCell()
  if (!ed25519.verify(signature, signing.hash(), publicKey)) fail('the Ed25519 signature does not verify')
  const walletId = slice.loadUint(32)
  const validUntil = slice.loadUint(32)
  const seqno = slice.loadUint(32)
  if (slice.loadUint(8) !== 0) fail('not a simple v4 transfer (op 0)')
  const actions: SignedTransfer['actions'] = []
  while (slice.remainingRefs > 0) {
    const mode = slice.loadUint(8)
    actions.push({ mode, message: loadMessageRelaxed(slice.loadRef().beginParse()) })
  }
  if (slice.remainingBits > 0) fail('trailing bits in the v4 body')
  return { walletId, validUntil, seqno, actions }
}

function readV5(body: Cell, publicKey: Uint8Array): SignedTransfer {
  if (body.bits.length < 512 + 128) fail('the v5 body is too short')
  const whole = body.beginParse()
  const signingBits = whole.loadBits(body.bits.length - 512)
  const signature = whole.loadBuffer(64)
  const builder = beginCell().storeBits(signingBits)
  for (const ref of body.refs) builder.storeRef(ref)
  const signing = builder.endCell()
  if (!ed25519.verify(signature, signing.hash(), publicKey)) fail('the Ed25519 signature does not verify')
  const slice = signing.beginParse()
  if (slice.loadUint(32) !== 0x7369676e) fail('not a v5 external "sign" request')
  const walletId = slice.loadUint(32)
  const validUntil = slice.loadUint(32)
  const seqno = slice.loadUint(32)
  const outList = slice.loadMaybeRef()
  if (slice.loadBit()) fail('the message carries extended actions (extensions, signature mode)')
  const actions = (outList ? loadOutList(outList.beginParse()) : []).map((action) => {
    if (action.type !== 'sendMsg') return fail(`unexpected out-action ${action.type}`)
    return { mode: action.mode, message: action.outMsg }
  })
  return { walletId, validUntil, seqno, actions }
}

function checkMessages(requested: unknown, actions: SignedTransfer['actions']): void {
  if (!Array.isArray(requested) || requested.length === 0) fail('the request has no messages')
  if (actions.length !== requested.length)
    fail(`${actions.length} messages signed, ${requested.length} requested`)
  for (const [index, wanted] of (requested as unknown[]).entries()) {
    const { mode, message } = actions[index]!
    if (!isRecord(wanted) || typeof wanted.address !== 'string') fail(`message ${index} has no address`)
    if (mode !== 3) fail(`message ${index} uses send mode ${mode}, not 3`)
    if (message.info.type !== 'internal') fail(`message ${index} is not internal`)
    let friendly: ReturnType<typeof Address.parseFriendly>
    try {
      friendly = Address.parseFriendly(wanted.address)
    } catch {
      fail(`message ${index}: ${wanted.address} is not a friendly address`)
    }
    if (!message.info.dest.equals(friendly.address)) fail(`message ${index} goes to another destination`)
    if (message.info.bounce !== friendly.isBounceable)
      fail(`message ${index}: bounce flag differs from the address tag`)
    const amount =
      typeof wanted.amount === 'number' || typeof wanted.amount === 'string'
        ? BigInt(wanted.amount)
        : undefined
    if (amount === undefined || message.info.value.coins !== amount)
      fail(`message ${index} sends another amount`)
    if (message.info.value.other && message.info.value.other.size > 0)
      fail(`message ${index} sends extra currencies`)
    const expectedBody =
      wanted.payload === undefined ? beginCell().endCell() : Cell.fromBase64(String(wanted.payload))
    if (!message.body.equals(expectedBody)) {
      fail(
        wanted.payload === undefined
          ? `message ${index} carries a body nobody asked for`
          : `message ${index} payload differs`,
      )
    }
    if (wanted.stateInit === undefined) {
      if (message.init) fail(`message ${index} carries a StateInit nobody asked for`)
    } else if (
      !message.init ||
      !cellOfStateInit(message.init).equals(Cell.fromBase64(String(wanted.stateInit)))
    ) {
      fail(`message ${index} StateInit differs`)
    }
  }
}

function cellOfStateInit(init: StateInit): Cell {
  return beginCell().store(storeStateInit(init)).endCell()
}
