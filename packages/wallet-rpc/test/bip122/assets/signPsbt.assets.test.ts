import {
  type BitcoinRegtest,
  type OrdIndex,
  serveOrd,
  startBitcoinRegtest,
} from '@wallet-rpc/devchains/bitcoinRegtest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ordServer } from '../../../src/bip122/assets/ordServer.js'
import { encodeInteger } from '../../../src/bip122/assets/runestone.js'
import type { OutputAssetsProvider } from '../../../src/bip122/assets/types.js'
import type { Bip122Policy } from '../../../src/bip122/policy.js'
import type { Purpose } from '../../../src/bip122/types.js'
import type { Review, ReviewItem } from '../../../src/core/review.js'
import { buildPsbt, foreignParty, type Harness, type PsbtInputSpec, startHarness } from '../psbtFixture.js'
import { itemValue } from './reviewItems.js'

// signPsbt with an assets provider: where the inscriptions, rare sats and runes of the inputs the wallet signs
// end up, through the real router, esplora() and ordServer() over the devchains ord index and regtest chain.

const theirs = foreignParty('signPsbt assets counterparty')
const dangers = ['psbt.inscription_burned', 'psbt.runes_burned']

let chain: BitcoinRegtest
let ord: OrdIndex
let h: Harness
beforeAll(async () => {
  chain = await startBitcoinRegtest()
  ord = await serveOrd(chain.chain, { indexSats: true })
  // Burns are `danger`: allowed here so their reviews can be read; the refusal itself is tested below.
  h = await startHarness({ chain, assets: ordServer(ord.url), allowDangerous: dangers })
})
afterAll(async () => {
  await h.stop()
  await ord.stop()
  await chain.stop()
})

// Fresh addresses one after the other on each chain, so a second wallet's discovery (gap limit 8) finds them.
const used = new Map<string, number>()
const fresh = (purpose: Purpose, change: 0 | 1) => {
  const index = used.get(`${purpose}/${change}`) ?? 0
  used.set(`${purpose}/${change}`, index + 1)
  return h.address(purpose, change, index)
}
/** A confirmed coin of ours (a fresh address of `purpose`), as a PSBT input. */
async function ours(value: number, purpose: Purpose = 86, options: { confirm?: boolean } = {}) {
  const owner = await fresh(purpose, 0)
  const { txid, vout } = chain.chain.fund(owner.address, value, options)
  const input: PsbtInputSpec = { txid, vout, script: owner.scriptPubKey, value }
  if (purpose !== 86) input.nonWitnessUtxo = chain.chain.rawTransaction(txid)!
  return { owner, input, at: { txid, vout } }
}
/** A confirmed coin of the counterparty. */
function foreign(value: number): PsbtInputSpec {
  const { txid, vout } = chain.chain.fund(theirs.address, value)
  return { txid, vout, script: theirs.script, value }
}

async function sign(
  inputs: PsbtInputSpec[],
  outputs: { script: Uint8Array; value: number }[],
  signed: { address: string; index: number; sighashTypes?: number[] }[],
  wallet: Harness = h,
) {
  const before = wallet.approvals.length
  const response = await wallet.call('signPsbt', {
    account: wallet.accountId,
    psbt: buildPsbt(inputs, outputs).toBase64(),
    signInputs: signed,
  })
  return { response, review: wallet.approvals.length > before ? wallet.approvals.at(-1) : undefined }
}

/** Fetch for ordServer: the index's answers with `inscriptions: null`, as from one that does not track them. */
const withoutInscriptions = (async (input: string | URL | Request, init?: RequestInit) => {
  const response = await fetch(input, init)
  if (!response.ok) return response
  const body = (await response.json()) as unknown
  const untracked = (output: object) => ({ ...output, inscriptions: null })
  return Response.json(Array.isArray(body) ? body.map(untracked) : untracked(body as object))
}) as typeof fetch

/**
 * Signing `coin` away with `assets` as the wallet's source: its input's contents are `line`, a caution; under
 * policy.assets.strict the request is refused. `before` runs before each signing (to inject a fault).
 */
async function expectUnknown(
  coin: Awaited<ReturnType<typeof ours>>,
  assets: OutputAssetsProvider,
  line: string,
  before: () => void = () => {},
) {
  const outputs = [{ script: theirs.script, value: 9_000 }]
  const signed = [{ address: coin.owner.address, index: 0 }]
  await withStrictWallet(
    {},
    async (wallet) => {
      before()
      const { response, review } = await sign([coin.input], outputs, signed, wallet)
      expect(response.error).toBeUndefined()
      expect(itemValue(assetGroup(review!).items, 'input 0')).toBe(line)
      expect(codes(review!)).toContain('psbt.assets_unknown:caution')
    },
    assets,
  )
  await withStrictWallet(
    { assets: { strict: true } },
    async (wallet) => {
      before()
      const { response, review } = await sign([coin.input], outputs, signed, wallet)
      expect(review).toBeUndefined()
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.assets_unknown' } })
    },
    assets,
  )
}

const assetGroup = (review: Review) =>
  review.items.find((entry) => entry.label.startsWith('Assets (')) as { items: ReviewItem[] }
const codes = (review: Review) => review.warnings.map((warning) => `${warning.code}:${warning.severity}`)

/**
 * An independent first-in-first-out, written for this test: walk the outputs, taking each one's value off the
 * sat's position in the transaction; past the last output it is the fee.
 */
function fifo(inputValues: number[], outputValues: number[], input: number, offset: number): number | 'fee' {
  let position = offset
  for (let i = 0; i < input; i++) position += inputValues[i]!
  for (const [vout, value] of outputValues.entries()) {
    if (position < value) return vout
    position -= value
  }
  return 'fee'
}

describe('signPsbt with an assets provider: inscriptions follow the sats, first in first out', () => {
  // Two layouts; in each, offset 0, the middle and the last sat of our inscribed input land in our output,
  // theirs or the fee (the independent FIFO above says which, and every landing is covered).
  const layouts = [
    {
      name: 'our input alone',
      foreignInFront: 0,
      outputs: ['theirs', 'ours'] as const,
      values: [3_000, 5_000],
    },
    {
      name: 'behind a foreign input',
      foreignInFront: 4_000,
      outputs: ['ours', 'theirs'] as const,
      values: [6_000, 6_000],
    },
  ]
  const cases = layouts.flatMap((layout) =>
    [0, 5_000, 9_999].map((offset) => ({ ...layout, offset, label: `${layout.name}, offset ${offset}` })),
  )

  it.each(cases)('$label', async ({ foreignInFront, outputs, values, offset }) => {
    const coin = await ours(10_000)
    const id = ord.inscribe(coin.at, offset)
    const change = await fresh(84, 1)
    const inputs = foreignInFront > 0 ? [foreign(foreignInFront), coin.input] : [coin.input]
    const ourIndex = inputs.length - 1
    const scripts = outputs.map((who) => (who === 'ours' ? change.scriptPubKey : theirs.script))
    const { response, review } = await sign(
      inputs,
      scripts.map((script, i) => ({ script, value: values[i]! })),
      [{ address: coin.owner.address, index: ourIndex }],
    )
    expect(response.error).toBeUndefined()
    const expected = fifo(
      inputs.map((input) => input.value),
      values,
      ourIndex,
      offset,
    )
    const line = itemValue(assetGroup(review!).items, `input ${ourIndex}`)
    if (expected === 'fee') {
      expect(line).toBe(`inscription ${id} → the fee (the miner takes it)`)
      expect(codes(review!)).toContain('psbt.inscription_burned:danger')
      expect(review!.warnings.find((w) => w.code === 'psbt.inscription_burned')!.message).toContain(id)
    } else if (outputs[expected] === 'ours') {
      expect(line).toBe(`inscription ${id} → output ${expected} (yours: ${change.address})`)
      expect(codes(review!).filter((code) => code.startsWith('psbt.inscription'))).toEqual([])
    } else {
      expect(line).toBe(`inscription ${id} → output ${expected} (external: ${theirs.address})`)
      expect(codes(review!)).toContain('psbt.inscription_to_external:caution')
      // The caution names the inscription and the address.
      const message = review!.warnings.find((w) => w.code === 'psbt.inscription_to_external')!.message
      expect(message).toContain(id)
      expect(message).toContain(theirs.address)
    }
  })

  it('after broadcast, the index finds each inscription where the review said (offset 0, middle, end)', async () => {
    for (const offset of [0, 4_000, 9_999]) {
      const coin = await ours(10_000)
      const id = ord.inscribe(coin.at, offset)
      const change = await fresh(84, 1)
      const outputs = [
        { script: theirs.script, value: 3_000 },
        { script: change.scriptPubKey, value: 5_000 },
      ]
      const before = h.approvals.length
      const response = await h.call('signPsbt', {
        account: h.accountId,
        psbt: buildPsbt([coin.input], outputs).toBase64(),
        signInputs: [{ address: coin.owner.address, index: 0 }],
        broadcast: true,
      })
      expect(response.error).toBeUndefined()
      chain.mine(1)
      const txid = (response.result as { txid: string }).txid
      const line = itemValue(assetGroup(h.approvals[before]!).items, 'input 0')!
      const satpoint = ord.satpoint(id)
      const landed = satpoint.startsWith('0'.repeat(64)) ? 'the fee' : `output ${satpoint.split(':')[1]}`
      expect(satpoint.startsWith(txid) || landed === 'the fee').toBe(true)
      expect(line).toContain(`→ ${landed}`)
    }
  })

  it('an inscription burned in the fee is refused unless the wallet allows psbt.inscription_burned', async () => {
    await withStrictWallet({}, async (wallet) => {
      const coin = await ours(10_000)
      ord.inscribe(coin.at, 9_999)
      const { response, review } = await sign(
        [coin.input],
        [{ script: theirs.script, value: 9_000 }],
        [{ address: coin.owner.address, index: 0 }],
        wallet,
      )
      expect(review).toBeUndefined()
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.inscription_burned' } })
    })
  })

  it('several inputs, several inscriptions: each placed by its own offset', async () => {
    const first = await ours(10_000)
    const second = await ours(20_000)
    const a = ord.inscribe(first.at, 9_000)
    const b = ord.inscribe(second.at, 0)
    const c = ord.inscribe(second.at, 19_000)
    const change = await fresh(84, 1)
    // 0..9999 first, 10000..29999 second; outputs: theirs 9500, ours 20000, fee 500.
    const { review } = await sign(
      [first.input, second.input],
      [
        { script: theirs.script, value: 9_500 },
        { script: change.scriptPubKey, value: 20_000 },
      ],
      [
        { address: first.owner.address, index: 0 },
        { address: second.owner.address, index: 1 },
      ],
    )
    expect(fifo([10_000, 20_000], [9_500, 20_000], 0, 9_000)).toBe(0)
    expect(fifo([10_000, 20_000], [9_500, 20_000], 1, 0)).toBe(1)
    expect(fifo([10_000, 20_000], [9_500, 20_000], 1, 19_000)).toBe(1)
    expect(itemValue(assetGroup(review!).items, 'input 0')).toBe(
      `inscription ${a} → output 0 (external: ${theirs.address})`,
    )
    expect(itemValue(assetGroup(review!).items, 'input 1')).toBe(
      `inscription ${b} → output 1 (yours: ${change.address}); inscription ${c} → output 1 (yours: ${change.address})`,
    )
  })

  it('a rare sat leaving the wallet is a caution; sats without ranges say rare sats were not checked', async () => {
    const coin = await ours(10_000)
    // Block 7's first sat at offset 2000 of the coin.
    ord.setSatRanges(coin.at, [[7 * 5_000_000_000 - 2_000, 7 * 5_000_000_000 + 8_000]])
    const { review } = await sign(
      [coin.input],
      [{ script: theirs.script, value: 9_000 }],
      [{ address: coin.owner.address, index: 0 }],
    )
    expect(itemValue(assetGroup(review!).items, 'input 0')).toBe(
      `rare sat (uncommon sat 35000000000) → output 0 (external: ${theirs.address})`,
    )
    expect(codes(review!)).toContain('psbt.rare_sats_leave_wallet:caution')

    // A coin the index has no sat ranges for (it answers `sat_ranges: null`).
    const unranged = await ours(10_000)
    const { review: unchecked } = await sign(
      [unranged.input],
      [{ script: theirs.script, value: 9_000 }],
      [{ address: unranged.owner.address, index: 0 }],
    )
    expect(itemValue(assetGroup(unchecked!).items, 'input 0')).toBe(
      'no inscriptions or runes (rare sats not checked: the index has no sat ranges)',
    )
    expect(codes(unchecked!).filter((code) => code.includes('rare_sats'))).toEqual([])
  })
})

describe('signPsbt with an assets provider: what is not fixed or not known', () => {
  it('SIGHASH_SINGLE|ANYONECANPAY (a marketplace listing): where the inscription goes is not fixed, a caution', async () => {
    const coin = await ours(10_000)
    const id = ord.inscribe(coin.at, 0)
    const { response, review } = await sign(
      [{ ...coin.input, sighashType: 0x83 }],
      [{ script: (await fresh(84, 1)).scriptPubKey, value: 9_000 }],
      [{ address: coin.owner.address, index: 0, sighashTypes: [0x83] }],
    )
    expect(response.error).toBeUndefined()
    expect(itemValue(assetGroup(review!).items, 'input 0')).toBe(
      `inscription ${id}: where it goes is not known (input 0 is signed SINGLE|ANYONECANPAY, so the other outputs may be added or changed and so inputs may be added in front)`,
    )
    expect(codes(review!)).toContain('psbt.assets_destination_open:caution')
  })

  it('a foreign input in front whose value nothing proves (P2WPKH signing, not on the index) is named in a caution', async () => {
    const coin = await ours(10_000, 84)
    const id = ord.inscribe(coin.at, 0)
    // A made-up foreign outpoint: only its witnessUtxo says what it holds.
    const madeUp: PsbtInputSpec = { txid: 'cd'.repeat(32), vout: 0, script: theirs.script, value: 3_000 }
    const change = await fresh(84, 1)
    const { review } = await sign(
      [madeUp, coin.input],
      [
        { script: theirs.script, value: 2_000 },
        { script: change.scriptPubKey, value: 10_000 },
      ],
      [{ address: coin.owner.address, index: 1 }],
    )
    expect(codes(review!)).toContain('psbt.assets_flow_unverified:caution')
    expect(review!.warnings.find((w) => w.code === 'psbt.assets_flow_unverified')!.message).toBe(
      'Where these go rests on input values nothing proves or the transaction does not state: input 1 (the value of input 0).',
    )
    // The placement is still shown, computed from the stated values.
    expect(itemValue(assetGroup(review!).items, 'input 1')).toBe(
      `inscription ${id} → output 1 (yours: ${change.address})`,
    )
  })

  it('the same input in front, on the chain: the index confirms its value, no caution', async () => {
    const coin = await ours(10_000, 84)
    ord.inscribe(coin.at, 0)
    const { review } = await sign(
      [foreign(3_000), coin.input],
      [
        { script: theirs.script, value: 2_000 },
        { script: (await fresh(84, 1)).scriptPubKey, value: 10_000 },
      ],
      [{ address: coin.owner.address, index: 1 }],
    )
    expect(codes(review!)).not.toContain('psbt.assets_flow_unverified:caution')
    expect(itemValue(assetGroup(review!).items, 'input 1')).toMatch(/ → output 1 \(yours: /)
  })

  it('an input of unknown contents (not indexed yet) is a caution, and danger under policy.assets.strict', async () => {
    const coin = await ours(10_000, 86, { confirm: false })
    const outputs = [{ script: theirs.script, value: 9_000 }]
    const { review } = await sign([coin.input], outputs, [{ address: coin.owner.address, index: 0 }])
    expect(itemValue(assetGroup(review!).items, 'input 0')).toBe(
      'contents unknown: not indexed yet (unconfirmed, or the index is behind the chain)',
    )
    expect(codes(review!)).toContain('psbt.assets_unknown:caution')
    await withStrictWallet({ assets: { strict: true } }, async (wallet) => {
      const { response } = await sign(
        [coin.input],
        outputs,
        [{ address: coin.owner.address, index: 0 }],
        wallet,
      )
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.assets_unknown' } })
    })
    chain.mine(1)
  })

  it('an index answering `inscriptions: null` (not tracked): contents unknown, a caution, danger under policy.assets.strict', async () => {
    const coin = await ours(10_000)
    ord.inscribe(coin.at, 0)
    await expectUnknown(
      coin,
      ordServer(ord.url, { fetch: withoutInscriptions }),
      'contents unknown: the index does not track inscriptions',
    )
  })

  it('an assets provider that is down (it rejects, or it never answers): a caution, danger under policy.assets.strict', async () => {
    const coin = await ours(10_000)
    const down: OutputAssetsProvider = {
      name: 'down index',
      outputs: () => Promise.reject(new Error('connect ECONNREFUSED')),
    }
    await expectUnknown(coin, down, 'contents unknown: down index could not be read: connect ECONNREFUSED')
    const hanging = ordServer(ord.url, { timeoutMs: 200, retries: 0 })
    await expectUnknown(
      coin,
      hanging,
      `contents unknown: ${hanging.name} could not be read: ${hanging.name}: POST /outputs: request timed out`,
      () => ord.injectFault({ kind: 'hang' }),
    )
  })

  it('a clean input says so', async () => {
    const coin = await ours(10_000)
    ord.setSatRanges(coin.at, [[5_000_000_001, 5_000_010_001]])
    const { review } = await sign(
      [coin.input],
      [{ script: theirs.script, value: 9_000 }],
      [{ address: coin.owner.address, index: 0 }],
    )
    expect(itemValue(assetGroup(review!).items, 'input 0')).toBe('no inscriptions, runes or rare sats')
    expect(codes(review!).filter((code) => code.includes('assets') || code.includes('inscription'))).toEqual(
      [],
    )
  })
})

describe('signPsbt with an assets provider: runes', () => {
  const rune = { name: 'UNCOMMON•GOODS', id: '840000:3', amount: 1_000n, divisibility: 1, symbol: '⧉' }
  const runestone = (integers: bigint[]) => {
    const payload = integers.flatMap(encodeInteger)
    return Uint8Array.from([0x6a, 0x5d, payload.length, ...payload])
  }

  it('no runestone: every rune goes to the first non-OP_RETURN output, a caution when it is not ours', async () => {
    const coin = await ours(10_000)
    ord.addRunes(coin.at, rune)
    const change = await fresh(84, 1)
    const { review } = await sign(
      [coin.input],
      [
        { script: theirs.script, value: 546 },
        { script: change.scriptPubKey, value: 8_000 },
      ],
      [{ address: coin.owner.address, index: 0 }],
    )
    const runes = review!.items.find((entry) => entry.label === 'Runes') as { items: ReviewItem[] }
    expect(itemValue(runes.items, 'runestone')).toMatch(/^none: /)
    expect(itemValue(runes.items, 'to output 0')).toBe(`100 UNCOMMON•GOODS ⧉: external: ${theirs.address}`)
    expect(codes(review!)).toContain('psbt.runes_to_external:caution')
  })

  it('a runestone: its edict and pointer decide; all to our outputs is shown without a warning', async () => {
    const coin = await ours(10_000)
    ord.addRunes(coin.at, rune)
    const change = await fresh(84, 1)
    const keep = await fresh(86, 1)
    // Edict: 400 of 840000:3 to output 2; pointer (tag 22) output 1: the other 600.
    const stone = runestone([22n, 1n, 0n, 840000n, 3n, 400n, 2n])
    const { review } = await sign(
      [coin.input],
      [
        { script: stone, value: 0 },
        { script: change.scriptPubKey, value: 546 },
        { script: keep.scriptPubKey, value: 8_000 },
      ],
      [{ address: coin.owner.address, index: 0 }],
    )
    const runes = review!.items.find((entry) => entry.label === 'Runes') as { items: ReviewItem[] }
    expect(itemValue(runes.items, 'runestone')).toBe('output 0: 1 edict, the rest to output 1')
    expect(itemValue(runes.items, 'to output 1')).toBe(`60 UNCOMMON•GOODS ⧉: yours: ${change.address}`)
    expect(itemValue(runes.items, 'to output 2')).toBe(`40 UNCOMMON•GOODS ⧉: yours: ${keep.address}`)
    expect(codes(review!).filter((code) => code.includes('rune'))).toEqual([])
  })

  it('a runestone sending part of them away: a caution naming the amount and the address', async () => {
    const coin = await ours(10_000)
    ord.addRunes(coin.at, rune)
    const change = await fresh(84, 1)
    // 250 base units to output 2 (theirs); the rest to the first non-OP_RETURN output, ours.
    const stone = runestone([0n, 840000n, 3n, 250n, 2n])
    const { review } = await sign(
      [coin.input],
      [
        { script: stone, value: 0 },
        { script: change.scriptPubKey, value: 8_000 },
        { script: theirs.script, value: 546 },
      ],
      [{ address: coin.owner.address, index: 0 }],
    )
    const message = review!.warnings.find((w) => w.code === 'psbt.runes_to_external')!.message
    expect(message).toBe(
      `Runes leave this wallet: 25 UNCOMMON•GOODS ⧉ → output 2 (external: ${theirs.address}).`,
    )
  })

  it('a cenotaph burns every rune: danger, refused unless the wallet allows psbt.runes_burned', async () => {
    const coin = await ours(10_000)
    ord.addRunes(coin.at, rune)
    // An unrecognized even tag (126): ord reads a cenotaph.
    const outputs = [
      { script: runestone([126n, 0n]), value: 0 },
      { script: (await fresh(84, 1)).scriptPubKey, value: 8_000 },
    ]
    const { review } = await sign([coin.input], outputs, [{ address: coin.owner.address, index: 0 }])
    expect(codes(review!)).toContain('psbt.runes_burned:danger')
    expect(review!.warnings.find((w) => w.code === 'psbt.runes_burned')!.message).toBe(
      'Runes burned: 100 UNCOMMON•GOODS ⧉: a cenotaph (unrecognized-even-tag) burns every rune the inputs carry.',
    )
    await withStrictWallet({}, async (wallet) => {
      const { response } = await sign(
        [coin.input],
        outputs,
        [{ address: coin.owner.address, index: 0 }],
        wallet,
      )
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.runes_burned' } })
    })
  })
})

describe('signPsbt without an assets provider', () => {
  it('the Assets and Runes groups come from the provider alone: without one the review is as before', async () => {
    const coin = await ours(10_000)
    ord.inscribe(coin.at, 9_999)
    ord.addRunes(coin.at, { name: 'UNCOMMON•GOODS', id: '840000:3', amount: 5n })
    const outputs = [{ script: theirs.script, value: 9_000 }]
    const signed = [{ address: coin.owner.address, index: 0 }]
    const before = ['Inputs', 'Outputs', 'Fee', 'Net change to this wallet']
    const { review } = await sign([coin.input], outputs, signed)
    expect(review!.items.map((entry) => entry.label)).toEqual([
      ...before,
      expect.stringMatching(/^Assets \(ord server /),
      'Runes',
    ])
    await withStrictWallet(
      {},
      async (wallet) => {
        const plain = await sign([coin.input], outputs, signed, wallet)
        expect(plain.response.error).toBeUndefined()
        expect(plain.review!.items.map((entry) => entry.label)).toEqual(before)
        expect(plain.review!.warnings.filter((w) => /inscription|rune|assets/.test(w.code))).toEqual([])
      },
      null,
    )
  })
})

/**
 * The same chain, another wallet (same keys): no allowed dangers, a policy of its own, the index's assets
 * (or `assets`' own, or none when null).
 */
async function withStrictWallet(
  policy: Bip122Policy,
  test: (wallet: Harness) => Promise<void>,
  assets: OutputAssetsProvider | null = ordServer(ord.url),
) {
  const wallet = await startHarness({ chain, policy, ...(assets === null ? {} : { assets }) })
  try {
    // Its first discovery, so it knows the addresses the tests funded.
    await wallet.call('getAccountAddresses', { account: wallet.accountId })
    await test(wallet)
  } finally {
    await wallet.stop()
  }
}
