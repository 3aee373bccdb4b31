import * as v from 'valibot'
import { InvalidParamsError, PolicyRefusedError, ProviderError } from '../../core/errors.js'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { readProvider } from '../../core/readProvider.js'
import { group, item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { decimalOrSafeInteger } from '../../core/schema.js'
import { friendly, parseDestination } from '../address.js'
import { maxValidFor, type TonWallet } from '../context.js'
import type { TransferRequest, WalletContract } from '../contracts.js'
import { messageEffects } from '../effects.js'
import { type EmulationOutcome, emulate, emulationReview } from '../emulation/review.js'
import { checkFrom, checkNetwork, networkField, oneObject, parseBoc, parseFastBoc } from '../params.js'
import { decodePayload } from '../payloadReview.js'
import { type PlannedMessage, prepareTransfer, type SealedTransfer } from '../preparedTransfer.js'
import { contractAddress, fromNano, loadStateInit, type StateInit } from '../tonCore.js'
import type { TonAccount, TonChainProvider, TonEmulationMessage } from '../types.js'

/** PAY_GAS_SEPARATELY (1) + IGNORE_ERRORS (2): what TON Connect's signMessage spec, WalletKit and Tonkeeper send. */
export const sendMode = 3

// Coins are VarUInteger 16: at most 120 bits.
const maxCoins = (1n << 120n) - 1n

// The spec allows a decimal string or a number; a number must be a safe integer (see decimalOrSafeInteger).
const amount = decimalOrSafeInteger(
  v.pipe(v.string(), v.regex(/^\d{1,37}$/, 'must be a decimal string of nanotons')),
  'nanotons',
)

const extraCurrency = v.optional(v.record(v.string(), v.union([v.string(), v.number()])))

/** Known keys only: an unknown key in a message (a `mode`, a `bounce`) would change what is sent. */
const message = v.strictObject({
  address: v.string(),
  amount,
  payload: v.optional(v.string()),
  stateInit: v.optional(v.string()),
  extra_currency: extraCurrency,
  extraCurrency,
})

export const tonSendMessageParams = oneObject(
  v.strictObject({
    valid_until: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
    // AppKit once sent camelCase; both spellings mean the same deadline.
    validUntil: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
    network: networkField,
    from: v.optional(v.string()),
    messages: v.pipe(v.array(message), v.minLength(1, 'must hold at least one message')),
  }),
)

export type TonSendMessageParams = v.InferOutput<typeof tonSendMessageParams>

type SendMessagePlan = {
  provider: TonChainProvider
  seqno: number
  /** The wallet is not deployed yet: attach its StateInit. */
  includeInit: boolean
  /** The dapp's deadline in Unix seconds, normalised; undefined when it gave none. */
  requestedValidUntil: number | undefined
  messages: PlannedMessage[]
}

/** Values above 10^10 are milliseconds (some dapps send Date.now() + …); TON counts seconds. */
function normaliseValidUntil(value: number): number {
  return value > 1e10 ? Math.floor(value / 1000) : value
}

/** The deadline to sign: the dapp's, never past ten minutes from now; a past one is refused. */
function resolveValidUntil(
  requested: number | undefined,
  nowSeconds: number,
  defaultValidFor: number,
): number {
  // The contracts require valid_until > now, so a deadline of this very second can no longer land.
  if (requested !== undefined && requested <= nowSeconds) {
    throw new PolicyRefusedError(`valid_until ${requested} is in the past`, {
      rule: 'ton.valid_until_expired',
    })
  }
  return Math.min(requested ?? nowSeconds + defaultValidFor, nowSeconds + maxValidFor)
}

function parseAmount(value: string, path: string): bigint {
  const nanotons = BigInt(value)
  if (nanotons <= 0n) throw new InvalidParamsError('amount must be a positive number of nanotons', { path })
  if (nanotons > maxCoins) throw new InvalidParamsError('amount exceeds the 120-bit coin range', { path })
  return nanotons
}

function parseMessage(
  raw: TonSendMessageParams['messages'][number],
  index: number,
  chainId: string,
): PlannedMessage {
  const path = `messages.${index}`
  for (const key of ['extra_currency', 'extraCurrency'] as const) {
    if (Object.keys(raw[key] ?? {}).length > 0) {
      throw new PolicyRefusedError(`${path}.${key}: this wallet does not send extra currencies`, {
        rule: 'ton.extra_currency_unsupported',
      })
    }
  }
  const destination = parseDestination(raw.address, chainId, `${path}.address`)
  const nanotons = parseAmount(raw.amount, `${path}.amount`)
  const body = raw.payload === undefined ? undefined : parseFastBoc(raw.payload, `${path}.payload`)
  let init: StateInit | undefined
  if (raw.stateInit !== undefined) {
    const cell = parseBoc(raw.stateInit, `${path}.stateInit`)
    try {
      const slice = cell.beginParse()
      init = loadStateInit(slice)
      if (slice.remainingBits > 0 || slice.remainingRefs > 0) throw new Error('trailing data')
    } catch {
      throw new InvalidParamsError('not a StateInit cell', { path: `${path}.stateInit` })
    }
  }
  return { destination, amount: nanotons, body, init }
}

/**
 * Destination states, only for the review's bounce warning: each distinct address is read once, a few at a
 * time (toncenter rate-limits), and a failed read becomes a caution instead of failing the request.
 */
async function destinationStates(
  provider: TonChainProvider,
  messages: readonly PlannedMessage[],
): Promise<(TonAccount | undefined)[]> {
  const unique = [...new Set(messages.map((message) => message.destination.address.toRawString()))]
  const states = new Map<string, TonAccount | undefined>()
  for (let start = 0; start < unique.length; start += 4) {
    await Promise.all(
      unique.slice(start, start + 4).map(async (address) => {
        states.set(address, await provider.getAccount(address).catch(() => undefined))
      }),
    )
  }
  return messages.map((message) => states.get(message.destination.address.toRawString()))
}

function reviewSendMessage(
  context: RequestContext,
  contract: WalletContract,
  messages: readonly PlannedMessage[],
  /** Per message; undefined where the chain could not tell (the review says so). */
  destinations: readonly (TonAccount | undefined)[],
  wallet: TonAccount,
  requestedValidUntil: number | undefined,
  emulation: { outcome: EmulationOutcome; required: boolean },
): ReviewDraft {
  const { chainId } = context
  const warnings: ReviewWarning[] = []
  const warn = (code: string, message: string) => {
    if (!warnings.some((warning) => warning.code === code))
      warnings.push({ code, severity: 'caution', message })
  }
  const items: ReviewItem[] = messages.map((message, index) => {
    const lines: ReviewItem[] = [
      item('To', friendly(message.destination.address, chainId, message.destination.bounceable)),
      item('Amount', `${fromNano(message.amount)} TON`),
      item('Bounce', message.destination.bounceable ? 'yes' : 'no'),
    ]
    if (message.body !== undefined) {
      const decoded = decodePayload(message.body, chainId)
      lines.push(decoded.item)
      if (decoded.opaque) {
        warn('ton.opaque_payload', 'A message calls a contract with data the wallet cannot decode.')
      }
    }
    const deploysDestination =
      message.init !== undefined &&
      contractAddress(message.destination.address.workChain, message.init).equals(message.destination.address)
    if (message.init !== undefined) {
      lines.push(
        item('Deploys contract', deploysDestination ? 'yes (StateInit attached)' : 'StateInit attached'),
      )
      warn('ton.deploy', 'A message deploys a contract (it carries a StateInit).')
      if (!deploysDestination) {
        warn(
          'ton.state_init_mismatch',
          'A StateInit does not belong to its destination address; the chain will ignore it.',
        )
      }
    }
    const destination = destinations[index]
    if (destination === undefined) {
      warn(
        'ton.destination_state_unknown',
        'The state of a destination account could not be read from the chain.',
      )
    }
    const state = destination?.state ?? 'active'
    if (message.destination.bounceable && state !== 'active' && !deploysDestination) {
      warn(
        'ton.bounce_to_uninit',
        'A bounceable transfer goes to an account that is not active yet; the coins will bounce back minus fees.',
      )
    }
    return group(`Message ${index + 1}`, lines)
  })
  // What the request does to the wallet's balances, after what it sends: the decoded messages stay as they are.
  const simulated = emulationReview(emulation.outcome, { chainId, required: emulation.required })
  items.push(...simulated.items)
  const total = messages.reduce((sum, message) => sum + message.amount, 0n)
  if (total > wallet.balance) {
    warn(
      'ton.insufficient_balance',
      `The wallet holds ${fromNano(wallet.balance)} TON, less than the ${fromNano(total)} TON sent.`,
    )
  }
  items.push(item('Total', `${fromNano(total)} TON plus network fees`))
  items.push(
    item(
      'Valid until',
      requestedValidUntil === undefined
        ? 'a few minutes after approval'
        : `${new Date(requestedValidUntil * 1000).toISOString()} (at most ${maxValidFor / 60} minutes after approval)`,
    ),
  )
  if (wallet.state !== 'active')
    items.push(item('Wallet deployment', 'this first message also deploys the wallet'))
  return {
    account: contract.account(chainId),
    title: messages.length === 1 ? 'Send 1 message' : `Send ${messages.length} messages`,
    items,
    warnings: [...warnings, ...simulated.warnings],
  }
}

/** The signed external message and its two hashes (cell hash, TEP-467 normalized). Only after approval. */
async function signTransfer(
  wallet: TonWallet,
  contract: WalletContract,
  header: Omit<TransferRequest, 'messages'>,
  messages: readonly PlannedMessage[],
  includeInit: boolean,
): Promise<SealedTransfer> {
  const transfer = prepareTransfer(contract, header, messages, includeInit)
  return transfer.seal(await wallet.sign(transfer.digest))
}

/**
 * What `ton_sendMessage` records in the request journal before it broadcasts (core/journal.ts): the signed
 * external message, its hash and TEP-467 normalized hash, and the seqno and deadline it was signed for.
 */
type SignedMessage = { boc: string; hashes: string[]; seqno: number; validUntil: number }

const signedMessageSchema = v.object({
  boc: v.pipe(v.string(), v.base64()),
  hashes: v.array(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
  seqno: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  validUntil: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
})

/** Broadcasts once; a hash the chain reports must be the message's own (or its normalized one). */
async function sendChecked(provider: TonChainProvider, signed: SignedMessage): Promise<{ hash?: string }> {
  const { hash } = await readProvider('broadcasting the message', () =>
    provider.sendBoc(new Uint8Array(Buffer.from(signed.boc, 'base64'))),
  )
  if (hash !== undefined && !signed.hashes.includes(hash.toLowerCase())) {
    throw new ProviderError(
      `the chain reported message hash ${hash.toLowerCase()}, expected ${signed.hashes[1]}`,
    )
  }
  return hash === undefined ? {} : { hash }
}

export type TonSendMessageOptions = {
  /** Answer `{ boc }` instead of the spec's string for this request (opt-in AppKit compatibility; see ton()). */
  resultAsObject?: (context: RequestContext) => boolean
  /** A request that could not be simulated is a `danger` instead of a `caution` (see ton()). */
  requireEmulation?: boolean
  /** How long the review waits for the provider's emulator, whatever the provider's own timeout. */
  emulationTimeoutMs?: number
}

/** The namespace's bound on any emulator; toncenter() and tonapi() give up sooner on their own (5 s). */
export const defaultEmulationTimeoutMs = 10_000

/** A message as the dapp sent it, for an emulator that takes TON Connect's shape (BoCs in standard base64). */
function emulationMessage(raw: TonSendMessageParams['messages'][number]): TonEmulationMessage {
  const standard = (text: string) => Buffer.from(text, 'base64').toString('base64')
  return {
    address: raw.address,
    amount: BigInt(raw.amount).toString(),
    ...(raw.payload === undefined ? {} : { payload: standard(raw.payload) }),
    ...(raw.stateInit === undefined ? {} : { stateInit: standard(raw.stateInit) }),
  }
}

export const ton_sendMessage = (wallet: TonWallet, options: TonSendMessageOptions = {}) => {
  // The spec's result is the plain string; the object form only when the wallet opted in for this dapp.
  const answerOf = (context: RequestContext, boc: string) =>
    options.resultAsObject?.(context) === true ? { boc } : boc
  return defineMethod({
    params: tonSendMessageParams,

    async plan(context, params) {
      const contract = await wallet.contract()
      checkNetwork(context, params.network)
      checkFrom(params.from, contract.address)
      if (
        params.valid_until !== undefined &&
        params.validUntil !== undefined &&
        params.valid_until !== params.validUntil
      ) {
        throw new InvalidParamsError('valid_until and validUntil disagree', { path: 'validUntil' })
      }
      const rawValidUntil = params.valid_until ?? params.validUntil
      const requestedValidUntil = rawValidUntil === undefined ? undefined : normaliseValidUntil(rawValidUntil)
      const validUntil = resolveValidUntil(
        requestedValidUntil,
        Math.floor(context.clock() / 1000),
        wallet.defaultValidFor,
      )
      if (params.messages.length > contract.maxMessages) {
        throw new InvalidParamsError(
          `a ${contract.version} wallet sends at most ${contract.maxMessages} messages`,
          {
            path: 'messages',
          },
        )
      }
      const messages = params.messages.map((raw, index) => parseMessage(raw, index, context.chainId))

      const provider = wallet.provider(context.chainId, context.method)
      const self = contract.rawAddress
      const [account, destinations] = await Promise.all([
        readProvider('reading the wallet account', () => provider.getAccount(self)),
        destinationStates(provider, messages),
      ])
      if (account.state === 'frozen') {
        throw new PolicyRefusedError('the wallet account is frozen', { rule: 'ton.wallet_frozen' })
      }
      const deployed = account.state === 'active'
      const seqno = deployed
        ? await readProvider('reading the wallet seqno', () => provider.getSeqno(self))
        : 0
      if (!Number.isSafeInteger(seqno) || seqno < 0 || seqno > 0xffffffff) {
        throw new ProviderError(`the chain reported an invalid seqno ${seqno}`)
      }
      const plan: SendMessagePlan = {
        provider,
        seqno,
        includeInit: !deployed,
        requestedValidUntil,
        messages,
      }
      // After the chain reads, before approval: what the emulator is shown is unsigned (64 zero bytes).
      const emulation = await emulate(
        provider,
        context.chainId,
        () => ({
          chainId: context.chainId,
          wallet: {
            rawAddress: self,
            address: contract.account(context.chainId),
            publicKey: contract.publicKey,
            version: contract.version,
            stateInit: deployed ? undefined : new Uint8Array(Buffer.from(contract.stateInitBoc, 'base64')),
          },
          seqno,
          validUntil,
          messages: params.messages.map(emulationMessage),
          unsignedBoc: prepareTransfer(contract, { seqno, validUntil, sendMode }, messages, !deployed).seal(
            new Uint8Array(64),
          ).boc,
        }),
        options.emulationTimeoutMs ?? defaultEmulationTimeoutMs,
      )
      return {
        review: reviewSendMessage(context, contract, messages, destinations, account, requestedValidUntil, {
          outcome: emulation,
          required: options.requireEmulation === true,
        }),
        plan,
        effects: messageEffects(context.chainId, contract.account(context.chainId), messages),
      }
    },

    async execute(context, plan: SendMessagePlan, journal): Promise<string | { boc: string }> {
      const contract = await wallet.contract()
      // The deadline counts from now, after the user's approval, not from when the request arrived.
      const validUntil = resolveValidUntil(
        plan.requestedValidUntil,
        Math.floor(context.clock() / 1000),
        wallet.defaultValidFor,
      )
      const { boc, hashes } = await signTransfer(
        wallet,
        contract,
        { seqno: plan.seqno, validUntil, sendMode },
        plan.messages,
        plan.includeInit,
      )
      const signed: SignedMessage = {
        boc: Buffer.from(boc).toString('base64'),
        hashes: hashes(),
        seqno: plan.seqno,
        validUntil,
      }
      await journal.signed(signed, signed.hashes)
      await journal.broadcast(await sendChecked(plan.provider, signed))
      return answerOf(context, signed.boc)
    },

    sends: {
      fixed: (plan: SendMessagePlan) => ({ seqno: plan.seqno }),
      async resend(context, recorded): Promise<string | { boc: string }> {
        const signed = v.parse(signedMessageSchema, recorded)
        const provider = wallet.provider(context.chainId, context.method)
        try {
          await sendChecked(provider, signed)
        } catch (error) {
          // Refused because it already landed: the wallet's seqno is past the one this message was signed for.
          if (((await seqnoNow(provider).catch(() => undefined)) ?? 0) <= signed.seqno) throw error
        }
        return answerOf(context, signed.boc)
      },
      async known(context, recorded): Promise<string | { boc: string } | undefined> {
        const signed = v.parse(signedMessageSchema, recorded)
        const seqno = await seqnoNow(wallet.provider(context.chainId, context.method))
        if (seqno > signed.seqno) return answerOf(context, signed.boc)
        // Its seqno unused and its deadline passed: it can never land. Before the deadline it still may.
        if (context.clock() / 1000 > signed.validUntil) return undefined
        throw new ProviderError(
          `message ${signed.hashes[0]} has not landed yet; it may until ${signed.validUntil}`,
        )
      },
    },
  })

  /** The wallet's seqno on chain now (0 before it is deployed). */
  async function seqnoNow(provider: TonChainProvider): Promise<number> {
    const self = (await wallet.contract()).rawAddress
    const account = await provider.getAccount(self)
    return account.state === 'active' ? provider.getSeqno(self) : 0
  }
}
