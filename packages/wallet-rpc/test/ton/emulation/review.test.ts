import { Address } from '@ton/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JsonRpcFailure } from '../../../src/core/jsonrpc.js'
import type { ReviewItem } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import type { Review } from '../../../src/index.js'
import {
  type TonChainProvider,
  type ToncenterOptions,
  type TonNamespaceOptions,
  ton,
  toncenter,
  walletContract,
} from '../../../src/ton/index.js'
import { fixturePublicKeyHex, fixtureSigner, plainDestination, request } from '../fixtures.js'
import { type Json, readdressed, recorded } from './answers.js'
import { type FakeChainServer, startFakeChainServer } from './server.js'

const ours = walletContract(Buffer.from(fixturePublicKeyHex, 'hex'), { version: 'v5r1' }).rawAddress
const friendly = (raw: string) => Address.parse(raw).toString({ bounceable: true, urlSafe: true })

let server: FakeChainServer
beforeAll(async () => {
  server = await startFakeChainServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.seen.length = 0
  server.sent.length = 0
  server.reply.clear()
})

function wallet(
  options: Partial<TonNamespaceOptions> & {
    allowDangerous?: string[]
    url?: string
    provider?: ToncenterOptions
    /** A custom emulator in place of toncenter's. */
    emulate?: TonChainProvider['emulate']
  } = {},
) {
  const { allowDangerous, url = `${server.url}/api/v2`, provider, emulate, ...namespace } = options
  const chain = toncenter(url, emulate === undefined ? provider : { ...provider, emulator: false })
  const reviews: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [
      ton({
        keys: fixtureSigner(),
        providers: { 'ton:-239': emulate === undefined ? chain : { ...chain, emulate } },
        ...namespace,
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    policy: { allowDangerous: allowDangerous ?? [] },
    clock: () => 1_700_000_000_000,
  })
  const send = (messages: unknown[] = [{ address: plainDestination, amount: '100000000' }]) =>
    rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', { messages }) })
  return { rpc, reviews, send }
}

/** The emulator answers the recorded trace, re-addressed to this test's wallet. */
function answerWith(name: string, edit: (answer: Json) => void = () => {}) {
  const answer = readdressed(recorded(name), ours)
  edit(answer)
  server.reply.set('emulateTonConnect', () => ({ status: 200, json: answer }))
}

function section(review: Review | undefined): Record<string, string[]> {
  const group = review?.items.find((entry) => entry.label === 'Balance changes (simulated)')
  const lines: Record<string, string[]> = {}
  for (const entry of (group as { items: ReviewItem[] } | undefined)?.items ?? []) {
    if ('value' in entry) lines[entry.label] = [...(lines[entry.label] ?? []), entry.value]
  }
  return lines
}

const codes = (review: Review | undefined) =>
  review?.warnings.map((warning) => [warning.code, warning.severity])

describe('ton_sendMessage review: balance changes (simulated)', () => {
  it('a TON transfer: what leaves, every fee included, and a note naming the emulator', async () => {
    answerWith('toncenter-ton-sent')
    const { reviews, send } = wallet()
    expect('result' in (await send())).toBe(true)
    expect(section(reviews[0])).toEqual({
      'You send': ['-1.002329608 TON'],
      Note: [
        `simulated by toncenter (${new URL(server.url).host}); the TON change includes every network fee and what comes back (excess, bounced coins)`,
      ],
    })
    expect(codes(reviews[0])).toEqual([])
    expect(server.sent).toHaveLength(1)
  })

  it('a jetton transfer: USD₮ by master with the symbol next to the master’s address; the decoded message stays', async () => {
    answerWith('toncenter-usdt-sent')
    const { reviews, send } = wallet()
    await send()
    const usdt = friendly('0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE')
    expect(section(reviews[0])['You send']).toEqual([
      '-0.007617194 TON',
      `-9 USD₮ (token ${usdt}, symbol as it reports)`,
    ])
    expect(reviews[0]!.items[0]!.label).toBe('Message 1')
  })

  it('missing metadata: the jetton in base units, by master', async () => {
    answerWith('toncenter-usdt-sent', (answer) => {
      delete answer.metadata
    })
    const { reviews, send } = wallet()
    await send()
    const usdt = friendly('0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE')
    expect(section(reviews[0])['You send']).toContain(`-9000000 base units of token ${usdt}`)
  })

  it('a jetton calling itself TON, or what reads as TON, is tx.token_symbol_lookalike; a symbol with hidden characters is shown escaped', async () => {
    const master = '0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE'
    for (const [symbol, shown, lookalike] of [
      ['TON', 'TON', true],
      ['\u0422\u041eN', '\u0422\u041eN', true], // Cyrillic Т and О
      ['\u03a4\u039f\u039d', '\u03a4\u039f\u039d', true], // Greek Τ, Ο and Ν
      ['\uff34\uff2f\uff2e', '\uff34\uff2f\uff2e', true], // fullwidth
      ['T0N', 'T0N', true],
      ['t\u200bon', 't\\u{200B}on', true],
      ['USD\u202eT', 'USD\\u{202E}T', false],
      ['TONY', 'TONY', false],
    ] as const) {
      answerWith('toncenter-usdt-sent', (answer) => {
        answer.metadata[master].token_info[0].symbol = symbol
      })
      const { reviews, send } = wallet()
      await send()
      expect(section(reviews[0])['You send']![1]).toBe(
        `-9 ${shown} (token ${friendly(master)}, symbol as it reports)`,
      )
      expect(codes(reviews[0])).toEqual(lookalike ? [['tx.token_symbol_lookalike', 'caution']] : [])
    }
  })

  it('an NFT transfer: the item, its index and collection', async () => {
    answerWith('toncenter-nft-transfer')
    const { reviews, send } = wallet()
    await send()
    const item = friendly('0:BDF0FBF297E3DDE3C0189F7F3DC4057E1FB4113066FF9A9F0412B0E0715A4E7E')
    const collection = friendly('0:B774D95EB20543F186C06B371AB88AD704F7E256130CAF96189368A7D0CB6CCF')
    expect(section(reviews[0])['You send']).toEqual([
      '-0.008131143 TON',
      `-NFT ${item} (#82003623148842611800048854158081695640922144133483046953867095880012292243080 of collection ${collection})`,
    ])
  })

  it('a bounce is the danger ton.emulation_failed: refused unless allowed, and then the cost of the failed attempt shows', async () => {
    answerWith('toncenter-nft-bounce')
    const refused = wallet()
    const response = (await refused.send()) as JsonRpcFailure
    expect(response.error.code).toBe(-32602)
    expect((response.error.data as { rule: string }).rule).toBe('ton.emulation_failed')
    expect(refused.reviews).toEqual([])
    expect(server.sent).toEqual([])

    const allowed = wallet({ allowDangerous: ['ton.emulation_failed'] })
    expect('result' in (await allowed.send())).toBe(true)
    const review = allowed.reviews[0]!
    const item = friendly('0:853DE9F75AFC0FD2C22BF82E33550B34DD423B4A0B05B3C9A50969C892328D2C')
    expect(codes(review)).toEqual([['ton.emulation_failed', 'danger']])
    expect(review.warnings[0]!.message).toBe(
      `The request fails when simulated by toncenter (${new URL(server.url).host}): ${item}: compute phase failed, exit code 413, its coins bounce back minus fees. The failed attempt still costs what the balance changes show.`,
    )
    expect(section(review)['You send']).toEqual(['-0.005784003 TON'])
    expect(section(review).Note![0]).toBe(
      `fails when simulated: ${item}: compute phase failed, exit code 413, its coins bounce back minus fees`,
    )
  })

  it('no answer (400, 500, timeout, not JSON): the caution ton.emulation_unavailable with the reason; the request still goes', async () => {
    const cases = [
      [
        { status: 400, json: { error: 'invalid request: from address is required' } },
        'toncenter emulateTonConnect: HTTP 400, invalid request: from address is required',
      ],
      [
        { status: 500, json: { error: 'failed to receive result from emulator channel' } },
        'toncenter emulateTonConnect: HTTP 500, failed to receive result from emulator channel',
      ],
      [{ hang: true }, 'toncenter emulateTonConnect: no answer within 300 ms'],
      [{ status: 200, text: '<html>' }, 'toncenter emulateTonConnect: HTTP 200, the answer is not JSON'],
    ] as const
    for (const [reply, reason] of cases) {
      server.reply.set('emulateTonConnect', () => reply)
      server.sent.length = 0
      // A short emulator timeout for the hanging case (toncenter's own is 5 s by default).
      const { reviews, send } = wallet({ provider: { emulateTimeoutMs: 300 } })
      const response = await send()
      expect('result' in response).toBe(true)
      expect(server.sent).toHaveLength(1)
      expect(section(reviews[0])).toEqual({ Simulation: [`unavailable: ${reason}`] })
      expect(reviews[0]!.warnings).toEqual([
        {
          code: 'ton.emulation_unavailable',
          severity: 'caution',
          message: `The request could not be simulated (${reason}); what it does to your balances is not shown.`,
        },
      ])
    }
  })

  it('no emulator configured is unavailable too; requireEmulation makes it a danger the policy refuses', async () => {
    const plain = wallet({ url: server.url.replace(/$/, '/v2-less') })
    await plain.send()
    expect(section(plain.reviews[0])).toEqual({
      Simulation: ['unavailable: no emulator is configured for ton:-239'],
    })

    expect(server.sent).toHaveLength(1)
    server.sent.length = 0
    server.reply.set('emulateTonConnect', () => ({ status: 500, json: { error: 'down' } }))
    const strict = wallet({ requireEmulation: true })
    const response = (await strict.send()) as JsonRpcFailure
    expect((response.error.data as { rule: string }).rule).toBe('ton.emulation_unavailable')
    expect(server.sent).toEqual([])
  })

  it('the namespace bounds any emulator: one that never settles is unavailable after emulationTimeoutMs', async () => {
    const { reviews, send } = wallet({ emulate: () => new Promise(() => {}), emulationTimeoutMs: 1000 })
    await send()
    expect(section(reviews[0])).toEqual({
      Simulation: ['unavailable: the emulator did not answer within 1000 ms'],
    })
  })

  it('a malformed result from a custom emulator is unavailable, not shown', async () => {
    const good = { emulator: 'mine', ton: -5n, jettons: [], nfts: [], failures: [] }
    const master = '0:'.padEnd(66, 'b')
    const jetton = { master, amount: -1n, symbol: 'X', decimals: 6 }
    for (const [result, field] of [
      [{ ...good, ton: 5 }, 'ton'],
      [{ ...good, jettons: [{ ...jetton, decimals: 1e9 }] }, 'jettons'],
      [{ ...good, jettons: [{ ...jetton, symbol: 42 }] }, 'jettons'],
      [{ ...good, nfts: [{ item: 'EQ…', direction: 'out' }] }, 'nfts'],
      [{ ...good, failures: [{ account: master, reason: 'x', bounced: 'no' }] }, 'failures'],
    ] as const) {
      const { reviews, send } = wallet({ emulate: async () => result as never })
      await send()
      expect(section(reviews[0])).toEqual({
        Simulation: [`unavailable: the emulator's result is malformed (${field})`],
      })
    }
  })
})
