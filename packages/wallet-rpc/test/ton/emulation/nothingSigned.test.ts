import { beginCell, Cell, loadMessage } from '@ton/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { ed25519 } from '../../../src/crypto/ed25519.js'
import {
  type TonChainProvider,
  type TonWalletVersion,
  ton,
  tonapi,
  toncenter,
  walletContract,
} from '../../../src/ton/index.js'
import { fixturePublicKeyHex, plainDestination, request, spiedSigner } from '../fixtures.js'
import { readdressed, recorded } from './answers.js'
import { type FakeChainServer, startFakeChainServer } from './server.js'

const publicKey = new Uint8Array(Buffer.from(fixturePublicKeyHex, 'hex'))

/**
 * The signature slot of the external message `boc` (v4R2: the first 512 bits of the body, v5R1: the last) and
 * the hash of the body it signs, or undefined when `boc` is no external message.
 */
function signatureOf(boc: Uint8Array, version: TonWalletVersion) {
  const message = externalMessage(boc)
  if (message === undefined) return undefined
  const body = message.body.beginParse()
  const unsignedBits = body.remainingBits - 512
  const signed = beginCell()
  const signature = version === 'v4r2' ? body.loadBuffer(64) : undefined
  signed.storeBits(body.loadBits(unsignedBits))
  for (const ref of message.body.refs) signed.storeRef(ref)
  return {
    signature: new Uint8Array(signature ?? body.loadBuffer(64)),
    digest: new Uint8Array(signed.endCell().hash()),
  }
}

/** True when `boc` is an external message whose signature verifies under the wallet's key. */
function holdsValidSignature(boc: Uint8Array, version: TonWalletVersion): boolean {
  const parts = signatureOf(boc, version)
  return parts !== undefined && ed25519().verify(publicKey, parts.digest, parts.signature)
}

/** The external-in message `boc` holds, if it is one (a payload BoC is not). */
function externalMessage(boc: Uint8Array) {
  try {
    const message = loadMessage(Cell.fromBoc(Buffer.from(boc))[0]!.beginParse())
    return message.info.type === 'external-in' ? message : undefined
  } catch {
    return undefined
  }
}

/** Every BoC inside a JSON body (any string value that decodes as one). */
function bocsIn(value: unknown): Uint8Array[] {
  if (typeof value === 'string') {
    try {
      const bytes = Buffer.from(value, 'base64')
      Cell.fromBoc(bytes)
      return [new Uint8Array(bytes)]
    } catch {
      return []
    }
  }
  if (typeof value !== 'object' || value === null) return []
  return Object.values(value).flatMap(bocsIn)
}

let server: FakeChainServer
beforeAll(async () => {
  server = await startFakeChainServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.account.state = 'active'
  server.seen.length = 0
  server.sent.length = 0
  server.reply.clear()
})

const cases = [
  { version: 'v4r2', state: 'active', messages: 1, emulator: 'toncenter' },
  { version: 'v5r1', state: 'active', messages: 2, emulator: 'toncenter' },
  { version: 'v5r1', state: 'active', messages: 6, emulator: 'toncenter' }, // emulateTrace: more than 4
  { version: 'v4r2', state: 'uninit', messages: 1, emulator: 'toncenter' }, // emulateTrace: not deployed
  { version: 'v5r1', state: 'uninit', messages: 1, emulator: 'tonapi' },
  { version: 'v4r2', state: 'active', messages: 3, emulator: 'tonapi' },
] as const

describe('nothing signed by the wallet’s key reaches an emulator (external signer)', () => {
  for (const { version, state, messages, emulator } of cases) {
    it(`${version}, ${state}, ${messages} messages, ${emulator}: emulate, then approve, then sign`, async () => {
      const contract = walletContract(publicKey, { version })
      const events: string[] = []
      server.account.state = state
      const onEmulate = (name: string) => () => {
        events.push('emulate')
        return { status: 200, json: readdressed(recorded(name), contract.rawAddress) }
      }
      server.reply.set('emulateTonConnect', onEmulate('toncenter-ton-sent'))
      server.reply.set('emulateTrace', onEmulate('toncenter-ton-sent'))
      server.reply.set('wallet/emulate', onEmulate('tonapi-ton-sent'))
      const provider: TonChainProvider = toncenter(
        `${server.url}/api/v2`,
        emulator === 'tonapi' ? { emulator: tonapi(server.url) } : {},
      )
      const rpc = createWalletRpc({
        namespaces: [
          ton({
            keys: spiedSigner(() => events.push('sign')),
            wallet: version,
            providers: { 'ton:-239': provider },
          }),
        ],
        approve: (review) => {
          events.push('approve')
          expect(review.warnings.map((warning) => warning.code)).not.toContain('ton.emulation_unavailable')
          return true
        },
        clock: () => 1_700_000_000_000,
      })
      const params = {
        messages: Array.from({ length: messages }, (_, index) => ({
          address: plainDestination,
          amount: String(index + 1),
          payload: beginCell()
            .storeUint(0, 32)
            .storeStringTail(`m${index}`)
            .endCell()
            .toBoc()
            .toString('base64'),
        })),
      }
      const response = await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', params) })
      expect('result' in response).toBe(true)
      expect(events).toEqual(['emulate', 'approve', 'sign'])

      const bodies = server.seen.filter((seen) => !seen.path.includes('/api/v2/')).map((seen) => seen.body)
      expect(bodies).toHaveLength(1)
      const shown = bocsIn(bodies)
      // The TON Connect payload carries the dapp's comments only; a BoC payload carries the unsigned message.
      const external = shown.filter((boc) => externalMessage(boc) !== undefined)
      expect(external).toHaveLength(emulator === 'tonapi' || messages > 4 || state === 'uninit' ? 1 : 0)
      for (const boc of shown) expect(holdsValidSignature(boc, version)).toBe(false)
      // What the emulator saw is the broadcast message with 64 zero bytes where the signature is.
      const broadcast = new Uint8Array(Buffer.from(server.sent[0]!, 'base64'))
      expect(holdsValidSignature(broadcast, version)).toBe(true)
      for (const boc of external) expect(signatureOf(boc, version)!.signature).toEqual(new Uint8Array(64))
    })
  }
})
