import { type BitcoinRegtest, serveOrd, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ordServer } from '../../../src/bip122/assets/ordServer.js'
import type { Bip122Policy } from '../../../src/bip122/policy.js'
import type { Purpose } from '../../../src/bip122/types.js'
import { buildPsbt, foreignParty, type Harness, startHarness } from '../psbtFixture.js'
import { itemValue } from './reviewItems.js'

// sendTransfer with an assets provider (ordServer over the devchains ord index) on the embedded regtest chain,
// through the real router and esplora() provider: protected coins are never spent by a plain transfer.

const recipient = foreignParty('assets recipient')
const blockSats = 5_000_000_000

/** `unanswered`: the index has no answer for it; `runesUntracked`: it answers `runes: null` for it. */
type Kind = 'clean' | 'inscription' | 'runes' | 'rare' | 'unconfirmed' | 'unanswered' | 'runesUntracked'
type Coin = { kind: Kind; value: number; purpose: Purpose; index: number; outpoint: string }

/** A chain, its ord index (sat index on) and the `abandon … about` wallet reading both; stopped by `stop`. */
async function setup(options: { policy?: Bip122Policy; allowDangerous?: string[] } = {}) {
  const chain = await startBitcoinRegtest()
  const ord = await serveOrd(chain.chain, { indexSats: true })
  const unanswered = new Set<string>()
  const runesUntracked = new Set<string>()
  // Between ordServer and the index: 404 for the unanswered (for a whole batch holding one, as ord does when
  // it does not know an outpoint), `runes: null` for the untracked.
  const doctored = (async (input: string | URL | Request, init?: RequestInit) => {
    const asked =
      init?.method === 'POST'
        ? (JSON.parse(String(init.body)) as string[])
        : [String(input).split('/output/')[1]]
    if (asked.some((outpoint) => outpoint !== undefined && unanswered.has(outpoint)))
      return new Response('', { status: 404 })
    const response = await fetch(input, init)
    if (!response.ok) return response
    const body = (await response.json()) as unknown
    const untracked = (output: { outpoint?: string }) =>
      runesUntracked.has(output.outpoint ?? '') ? { ...output, runes: null } : output
    return Response.json(Array.isArray(body) ? body.map(untracked) : untracked(body as object))
  }) as typeof fetch
  const h = await startHarness({ chain, assets: ordServer(ord.url, { fetch: doctored }), ...options })
  let nextBlock = 1
  /** Funds one coin of `kind` on the wallet's address and marks it in the index as the test says. */
  const fund = async (kind: Kind, value: number, purpose: Purpose = 84, index = 0): Promise<Coin> => {
    const owner = await h.address(purpose, 0, index)
    const { txid, vout } = chain.chain.fund(owner.address, value, { confirm: kind !== 'unconfirmed' })
    const at = { txid, vout }
    // Every coin gets sats: common ones inside block `n`, or, for a rare one, across block n's first sat.
    const block = nextBlock++ * blockSats
    const start = kind === 'rare' ? block - Math.floor(value / 2) : block + 1
    if (kind !== 'unconfirmed') ord.setSatRanges(at, [[start, start + value]])
    if (kind === 'inscription') ord.inscribe(at, Math.floor(value / 3))
    if (kind === 'runes') ord.addRunes(at, { name: 'UNCOMMON•GOODS', id: '1:0', amount: 1000n })
    const outpoint = `${txid}:${vout}`
    if (kind === 'unanswered') unanswered.add(outpoint)
    if (kind === 'runesUntracked') runesUntracked.add(outpoint)
    return { kind, value, purpose, index, outpoint }
  }
  return {
    chain,
    ord,
    h,
    fund,
    stop: async () => {
      await h.stop()
      await ord.stop()
      await chain.stop()
    },
  }
}

type Call = Awaited<ReturnType<Harness['call']>>

function spentBy(chain: BitcoinRegtest, call: Call): string[] {
  const txid = (call.result as { txid: string }).txid
  return bitcoin.Transaction.fromBuffer(chain.chain.rawTransaction(txid)!).ins.map(
    (input) => `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`,
  )
}

const transfer = (h: Harness, amount: number) =>
  h.call('sendTransfer', {
    account: h.accountId,
    recipientAddress: recipient.address,
    amount: String(amount),
  })

describe('sendTransfer with an assets provider', () => {
  it('never spends a coin carrying an inscription, runes or rare sats, nor one the index does not know (random wallets)', async () => {
    const coinArb = fc.record({
      kind: fc.constantFrom<Kind>(
        'clean',
        'clean',
        'clean',
        'inscription',
        'runes',
        'rare',
        'unconfirmed',
        'unanswered',
        'runesUntracked',
      ),
      value: fc.integer({ min: 5_000, max: 200_000 }),
      purpose: fc.constantFrom<Purpose>(84, 84, 49, 44),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(coinArb, { minLength: 1, maxLength: 7 }),
        fc.double({ min: 0.05, max: 1.2, noNaN: true }),
        async (specs, share) => {
          const world = await setup()
          try {
            const coins: Coin[] = []
            // Each funding mines a block, so the unconfirmed coins come last (the others would confirm them).
            const ordered = [...specs.entries()].sort(
              ([, a], [, b]) => Number(a.kind === 'unconfirmed') - Number(b.kind === 'unconfirmed'),
            )
            // A taproot (ordinal) coin: never spent by a plain transfer, and not counted as held back either.
            await world.fund('clean', 50_000, 86, 0)
            for (const [i, spec] of ordered)
              coins.push(await world.fund(spec.kind, spec.value, spec.purpose, i))
            const clean = coins.filter((coin) => coin.kind === 'clean')
            const cleanTotal = clean.reduce((sum, coin) => sum + coin.value, 0)
            const total = coins.reduce((sum, coin) => sum + coin.value, 0)
            const amount = Math.max(1000, Math.floor(total * share))
            const broadcastsBefore = world.chain.broadcastCount()
            const response = await transfer(world.h, amount)
            const protectedCount = coins.length - clean.length
            if (response.error) {
              expect(world.chain.broadcastCount()).toBe(broadcastsBefore)
              // The clean coins could pay amount and fee: it would not have failed.
              expect(cleanTotal).toBeLessThan(amount + 3_000)
              expect(response.error.data).toMatchObject(
                protectedCount > 0
                  ? {
                      rule: 'transfer.protected_coins',
                      reason: expect.stringContaining(
                        `${protectedCount} coin${protectedCount === 1 ? '' : 's'}, `,
                      ),
                    }
                  : { path: 'amount' },
              )
              return
            }
            const spent = spentBy(world.chain, response)
            const cleanOutpoints = new Set(clean.map((coin) => coin.outpoint))
            expect(
              spent.every((outpoint) => cleanOutpoints.has(outpoint)),
              `spent ${spent}`,
            ).toBe(true)
            const review = world.h.approvals.at(-1)!
            expect(itemValue(review.items, 'Protected coins')).toMatch(
              protectedCount === 0 ? /^none held back/ : new RegExp(`^${protectedCount} coins?, `),
            )
          } finally {
            await world.stop()
          }
        },
      ),
      { numRuns: 20 },
    )
  })

  it('when only protected coins could pay: a refusal naming the protected total, no approval asked, nothing broadcast', async () => {
    const world = await setup()
    try {
      await world.fund('clean', 10_000, 84, 0)
      await world.fund('inscription', 30_000, 84, 1)
      await world.fund('runes', 40_000, 49, 0)
      await world.fund('unconfirmed', 25_000, 84, 2)
      const approvals = world.h.approvals.length
      const response = await transfer(world.h, 50_000)
      expect(response.error?.code).toBe(-32602)
      expect(response.error?.data).toEqual({
        rule: 'transfer.protected_coins',
        reason:
          'insufficient funds without protected coins: 0.00010000 BTC (10000 sat) spendable, 0.00050000 BTC (50000 sat) plus fee needed; ' +
          '3 coins, 0.00095000 BTC (95000 sat): 1 with inscriptions, 1 with runes, 1 unknown to the index (not indexed yet (unconfirmed, or the index is behind the chain)) are held back ' +
          '(inscriptions, runes, rare sats and coins the index does not know are never spent by a plain transfer; policy.assets.spend allows it)',
      })
      expect(world.h.approvals.length).toBe(approvals)
      expect(world.chain.broadcastCount()).toBe(0)
    } finally {
      await world.stop()
    }
  })

  it('the review says how many coins were held back and why; the clean coin pays', async () => {
    const world = await setup()
    try {
      const clean = await world.fund('clean', 100_000, 84, 0)
      await world.fund('inscription', 300_000, 84, 1)
      await world.fund('rare', 200_000, 84, 2)
      const response = await transfer(world.h, 20_000)
      expect(response.error).toBeUndefined()
      expect(spentBy(world.chain, response)).toEqual([clean.outpoint])
      const review = world.h.approvals.at(-1)!
      expect(itemValue(review.items, 'Protected coins')).toMatch(
        /^2 coins, 0\.00500000 BTC \(500000 sat\): 1 with inscriptions, 1 with rare sats; held back, never spent by a plain transfer \(checked with ord server 127\.0\.0\.1:\d+\)$/,
      )
      expect(review.warnings).toEqual([])
    } finally {
      await world.stop()
    }
  })

  it('an index that cannot be reached holds every coin back and says why', async () => {
    const world = await setup()
    try {
      await world.fund('clean', 100_000, 84, 0)
      world.ord.configure({ jsonApi: false })
      const response = await transfer(world.h, 20_000)
      expect(response.error?.data).toMatchObject({
        rule: 'transfer.protected_coins',
        reason: expect.stringMatching(
          /1 unknown to the index \(ord server 127\.0\.0\.1:\d+ could not be read: .*HTTP 406\)/,
        ),
      })
      expect(world.chain.broadcastCount()).toBe(0)
    } finally {
      await world.stop()
    }
  })

  it('a coin the index reports spent means the cached coin list is old: the chain is read again once', async () => {
    const chain = await startBitcoinRegtest()
    const ord = await serveOrd(chain.chain)
    // Discoveries kept for a minute: the transfer starts from a cached coin list.
    const h = await startHarness({ chain, assets: ordServer(ord.url), cacheMs: 60_000 })
    const other = await startHarness({ chain })
    try {
      const first = await h.address(84, 0, 0)
      const spentElsewhere = chain.chain.fund(first.address, 50_000)
      chain.chain.fund(first.address, 20_000)
      await h.call('getAccountAddresses', { account: h.accountId })
      const arrived = chain.chain.fund(first.address, 60_000)
      // The same keys in another wallet spend the 50,000 coin; the first wallet's cached list still has it.
      const away = await other.call('signPsbt', {
        account: other.accountId,
        psbt: buildPsbt(
          [
            {
              ...spentElsewhere,
              script: first.scriptPubKey,
              value: 50_000,
              nonWitnessUtxo: chain.chain.rawTransaction(spentElsewhere.txid)!,
            },
          ],
          [{ script: recipient.script, value: 49_000 }],
        ).toBase64(),
        signInputs: [{ address: first.address, index: 0 }],
        broadcast: true,
      })
      expect(away.error).toBeUndefined()
      chain.mine(1)
      const response = await transfer(h, 40_000)
      expect(response.error).toBeUndefined()
      expect(spentBy(chain, response)).toEqual([`${arrived.txid}:${arrived.vout}`])
    } finally {
      await other.stop()
      await h.stop()
      await ord.stop()
      await chain.stop()
    }
  })

  it('concurrent transfers still never share a coin, and none spends a protected one', async () => {
    const world = await setup()
    try {
      const clean: Coin[] = []
      for (let i = 0; i < 6; i++) clean.push(await world.fund('clean', 30_000, 84, i))
      await world.fund('inscription', 500_000, 49, 0)
      const calls = await Promise.all(Array.from({ length: 5 }, () => transfer(world.h, 10_000)))
      expect(calls.map((call) => call.error)).toEqual(Array(5).fill(undefined))
      const spent = calls.flatMap((call) => spentBy(world.chain, call))
      expect(new Set(spent).size).toBe(spent.length)
      expect(spent.every((outpoint) => clean.some((coin) => coin.outpoint === outpoint))).toBe(true)
    } finally {
      await world.stop()
    }
  })

  it('policy.assets.spend lets a wallet spend them on purpose, after the clean coins; the review says where the inscription goes', async () => {
    const world = await setup({ policy: { assets: { spend: ['inscriptions'] } } })
    try {
      const inscribed = await world.fund('inscription', 30_000, 84, 0)
      await world.fund('runes', 40_000, 84, 1)
      const response = await transfer(world.h, 15_000)
      expect(response.error).toBeUndefined()
      // The only coin it may spend: the inscription at offset 10000 goes to the recipient (the first 15000 sats).
      expect(spentBy(world.chain, response)).toEqual([inscribed.outpoint])
      const review = world.h.approvals.at(-1)!
      expect(itemValue(review.items, 'Protected coins spent')).toBe(
        '1 coin, 0.00030000 BTC (30000 sat): 1 with inscriptions',
      )
      expect(itemValue(review.items, 'input 0')).toMatch(
        new RegExp(
          `^inscription ${inscribed.outpoint.slice(0, 64)}i0 → output 0 \\(the recipient ${recipient.address}\\)`,
        ),
      )
      expect(review.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
        ['transfer.inscription_to_external', 'caution'],
      ])
      expect(itemValue(review.items, 'Protected coins')).toMatch(/^1 coin, .*1 with runes; held back/)
    } finally {
      await world.stop()
    }
  })

  it('a deliberate spend that would burn the inscription in the fee is refused as danger; nothing is broadcast', async () => {
    const world = await setup({ policy: { assets: { spend: ['inscriptions'] } } })
    try {
      // 10,000 sat, inscribed on its last sat; sending 9,500 leaves 500 for fee and no change: the fee takes it.
      const coin = await world.fund('clean', 10_000, 84, 0)
      const id = world.ord.inscribe({ txid: coin.outpoint.slice(0, 64), vout: 0 }, 9_999)
      const response = await transfer(world.h, 9_500)
      expect(response.error?.code).toBe(-32602)
      expect(JSON.stringify(response.error?.data)).toContain('transfer.inscription_burned')
      expect(JSON.stringify(response.error?.data)).toContain(id)
      expect(world.chain.broadcastCount()).toBe(0)
    } finally {
      await world.stop()
    }
  })
})
