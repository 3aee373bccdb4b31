import { bytesToHex } from '@noble/hashes/utils.js'
import { TonAdapter } from '@reown/appkit-adapter-ton'
import { Address, beginCell, Cell, storeMessage } from '@ton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { normalizedMessageHash } from '../../src/ton/index.js'
import { verifyTonSendMessage, verifyTonSignData } from '../../src/verify/index.js'
import {
  activate,
  controllersOf,
  type DappSession,
  dappUrl,
  installedVersion,
  startDappSession,
  TON_TESTNET,
} from './dappSession.js'

/**
 * @reown/appkit-adapter-ton's `TonWalletConnectConnector` against our wallet over a real session, the
 * messages landing in @ton/sandbox. With the spec's answer (a plain base64 string) the adapter hands the app
 * '' for ton_sendMessage; with the wallet's opt-in switch for this dapp it hands over the BoC.
 */

type TonConnector = {
  sendMessage(params: {
    validUntil?: number
    from?: string
    messages: Array<{ address: string; amount: string | number; payload?: string }>
  }): Promise<string>
  signData(
    params: { type: 'text'; text: string; from: string } | { type: 'binary'; bytes: string; from: string },
  ): Promise<string>
}

// A destination outside the wallet (the TON Connect spec example), non-bounceable, testnet form.
const destination = Address.parse('0:e69f10cc84877abf539f83f879291e5ca169451ba7bce91a37a5ced3ab8080d3')
const destinationFriendly = destination.toString({ bounceable: false, testOnly: true, urlSafe: true })

let dapp: DappSession
let connector: TonConnector
let account: string
/** The wallet's opt-in switch for AppKit's `{ boc }` answer, for this dapp's origin only. */
let appKitCompat = false
/** Every raw answer the UniversalProvider received, to compare with what the adapter hands the app. */
const rawAnswers: unknown[] = []

beforeAll(async () => {
  dapp = await startDappSession({
    ton: { sendMessageResultAsObject: (context) => appKitCompat && context.origin === dappUrl },
  })
  const network = dapp.networks.ton
  account = dapp.account(TON_TESTNET)
  const adapter = new TonAdapter({})
  activate(await controllersOf('@reown/appkit-adapter-ton'), adapter, [network], `${TON_TESTNET}:${account}`)
  const request = dapp.provider.request.bind(dapp.provider)
  // Same provider, same signature; only records the raw answer on its way to the adapter.
  dapp.provider.request = (async (...args: Parameters<typeof request>) => {
    const answer = await request(...args)
    rawAnswers.push(answer)
    return answer
  }) as typeof dapp.provider.request
  connector = adapter.getWalletConnectProvider({
    provider: dapp.provider,
    caipNetworks: [network],
    activeCaipNetwork: network,
  } as never) as unknown as TonConnector
  await dapp.tonChain.fund(account, 5_000_000_000n)
}, 120_000)

afterAll(async () => {
  await dapp?.stop()
})

const sessionKeys = () => ({
  publicKey: dapp.session.sessionProperties?.ton_getPublicKey ?? '',
  stateInit: dapp.session.sessionProperties?.ton_getStateInit ?? '',
})

/** Destination (raw) and value of each internal message the wallet's last transaction sent. */
function paidByLast(): Array<[string, bigint]> {
  const transaction = dapp.tonChain.sent.at(-1)?.transactions[0]
  return [...(transaction?.outMessages.values() ?? [])].map((message) => {
    if (message.info.type !== 'internal') throw new Error('not an internal message')
    return [message.info.dest.toRawString(), message.info.value.coins]
  })
}

describe(`@reown/appkit-adapter-ton ${installedVersion('@reown/appkit-adapter-ton')} TonWalletConnectConnector`, () => {
  it("sendMessage, spec answer (default): the message lands, but the adapter hands the app '' ", async () => {
    const params = {
      validUntil: Math.floor(Date.now() / 1000) + 120,
      from: account,
      messages: [{ address: destinationFriendly, amount: '100000000' }],
    }
    const answer = await connector.sendMessage(params)
    // The adapter wraps the app's params in a one-element array and passes them on unchanged (camelCase validUntil).
    expect(dapp.received.at(-1)).toMatchObject({
      chainId: TON_TESTNET,
      method: 'ton_sendMessage',
      params: [params],
    })
    expect(answer).toBe('')
    // What our wallet answered: the spec's base64 BoC string, which the chain accepted.
    const boc = rawAnswers.at(-1)
    expect(typeof boc).toBe('string')
    expect(verifyTonSendMessage([params], boc, sessionKeys())).toEqual({ valid: true })
    expect(landedLast(boc as string)).toBe(true)
    expect(paidByLast()).toEqual([[destination.toRawString(), 100_000_000n]])
  })

  it('sendMessage with amount as a number: accepted, same transfer', async () => {
    await connector.sendMessage({
      from: account,
      messages: [{ address: destinationFriendly, amount: 7_000_000 }],
    })
    expect(paidByLast()).toEqual([[destination.toRawString(), 7_000_000n]])
  })

  it('sendMessage with the opt-in { boc } answer for this dapp: the app gets the BoC the sandbox accepted', async () => {
    appKitCompat = true
    try {
      const params = { from: account, messages: [{ address: destinationFriendly, amount: '50000000' }] }
      const boc = await connector.sendMessage(params)
      expect(rawAnswers.at(-1)).toEqual({ boc })
      expect(verifyTonSendMessage([params], boc, sessionKeys())).toEqual({ valid: true })
      // The external message the app holds is the one whose transaction ran on the wallet contract.
      expect(landedLast(boc)).toBe(true)
      expect(paidByLast()).toEqual([[destination.toRawString(), 50_000_000n]])
    } finally {
      appKitCompat = false
    }
  })

  it('signData (text): the app gets the signature only, which verifies with the fields the adapter drops', async () => {
    const params = { type: 'text' as const, text: 'Confirm login to dapp.example.com', from: account }
    const signature = await connector.signData(params)
    const raw = rawAnswers.at(-1) as { signature: string; timestamp: number; domain: string }
    expect(signature).toBe(raw.signature)
    expect(raw.domain).toBe('dapp.example.com')
    // The app cannot check this itself: the signed bytes include the wallet's timestamp and the domain,
    // and the adapter hands over `signature` alone.
    expect(verifyTonSignData([params], raw, { ...sessionKeys(), domain: 'dapp.example.com' })).toEqual({
      valid: true,
    })
  })

  it('signData (binary): same, the signature verifies over the bytes', async () => {
    const params = {
      type: 'binary' as const,
      bytes: Buffer.from('any bytes').toString('base64'),
      from: account,
    }
    const signature = await connector.signData(params)
    const raw = rawAnswers.at(-1) as { signature: string }
    expect(signature).toBe(raw.signature)
    expect(verifyTonSignData([params], raw, { ...sessionKeys(), domain: 'dapp.example.com' })).toEqual({
      valid: true,
    })
  })

  it('the wallet side reported no SDK failure (attachWalletKit onError)', () => {
    expect(dapp.walletErrors).toEqual([])
  })
})

/**
 * Whether `boc` is the external message of the last transaction @ton/sandbox ran, and that transaction
 * succeeded (compute and action phases) on the wallet contract.
 */
function landedLast(boc: string): boolean {
  const transaction = dapp.tonChain.sent.at(-1)?.transactions[0]
  const inMessage = transaction?.inMessage
  if (!transaction || !inMessage) return false
  const ran = beginCell().store(storeMessage(inMessage)).endCell()
  const description = transaction.description
  const succeeded =
    description.type === 'generic' &&
    description.computePhase.type === 'vm' &&
    description.computePhase.success &&
    description.actionPhase?.success === true
  return (
    succeeded &&
    bytesToHex(normalizedMessageHash(ran)) === bytesToHex(normalizedMessageHash(Cell.fromBase64(boc)))
  )
}
