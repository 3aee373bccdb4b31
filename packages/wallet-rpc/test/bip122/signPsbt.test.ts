import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import * as tiny from 'tiny-secp256k1'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { memoryStorage } from '../../src/core/journal.js'
import {
  buildPsbt,
  chainId,
  foreignParty,
  type Harness,
  type PsbtInputSpec,
  parentOf,
  startHarness,
  withHarness,
} from './psbtFixture.js'

// signPsbt through the real router, the real esplora() provider and the embedded regtest chain, whose
// acceptance is checked by @scure/btc-signer + @noble/curves. Every refusal asserts its exact code.

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.stop()
})

const external = foreignParty('signPsbt external recipient')

async function fundOwn(purpose: 44 | 49 | 84 | 86, index: number, sats: number) {
  const owner = await h.address(purpose, 0, index)
  const outpoint = h.chain.fund(owner.address, sats)
  return { owner, ...outpoint, value: sats }
}

/** JSON of a PSBT input with bytes as hex, ignoring bitcoinjs' empty `unknownKeyVals` bookkeeping. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (key, v) => {
    if (key === 'unknownKeyVals' && Array.isArray(v) && v.length === 0) return undefined
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
    return typeof v === 'bigint' ? String(v) : v
  })
}

function decode(result: unknown): bitcoin.Psbt {
  return bitcoin.Psbt.fromBase64((result as { psbt: string }).psbt)
}

describe('signPsbt: signing', () => {
  it('signs a listed P2WPKH input without finalizing; the signature verifies independently', async () => {
    const input = await fundOwn(84, 0, 100_000)
    const psbt = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey }],
      [{ script: external.script, value: 90_000 }],
    )
    const before = h.approvals.length
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: input.owner.address, index: 0 }],
    })
    expect(response.error).toBeUndefined()
    const signed = decode(response.result)
    expect(signed.data.inputs[0]!.finalScriptWitness).toBeUndefined()
    expect(signed.data.inputs[0]!.partialSig).toHaveLength(1)
    expect(
      signed.validateSignaturesOfInput(0, (pubkey, hash, signature) => tiny.verify(hash, pubkey, signature)),
    ).toBe(true)
    expect(h.approvals.length).toBe(before + 1)
    const review = h.approvals.at(-1)!
    expect(review.title).toBe('Sign a Bitcoin transaction (PSBT)')
    expect(JSON.stringify(review.items)).toContain('yours, signing with ALL')
    expect(JSON.stringify(review.items)).toContain('external: ')
    expect(JSON.stringify(review.items)).toContain('10000 sat')
  })

  it('signs P2PKH, P2SH-P2WPKH, P2WPKH and P2TR inputs, broadcasts once, and the chain accepts it', async () => {
    const inputs = [
      await fundOwn(44, 1, 50_000),
      await fundOwn(49, 1, 50_000),
      await fundOwn(84, 1, 50_000),
      await fundOwn(86, 1, 50_000),
    ]
    const specs = await Promise.all(
      inputs.map(async (input) => ({
        ...input,
        script: input.owner.scriptPubKey,
        ...(input.owner.addressType === 'p2pkh'
          ? { nonWitnessUtxo: await parentOf(h.chain, input.txid), witnessUtxo: false }
          : {}),
      })),
    )
    const change = await h.address(84, 1, 0)
    const psbt = buildPsbt(specs, [
      { script: external.script, value: 150_000 },
      { script: change.scriptPubKey, value: 48_000 },
    ])
    const broadcastsBefore = h.chain.broadcastCount()
    const eventsBefore = h.events.length
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: inputs.map((input, index) => ({ address: input.owner.address, index })),
      broadcast: true,
    })
    expect(response.error).toBeUndefined()
    const { txid } = response.result as { txid: string }
    expect(h.chain.broadcastCount()).toBe(broadcastsBefore + 1)
    const finalized = decode(response.result)
    expect(finalized.extractTransaction().getId()).toBe(txid)
    expect(h.chain.chain.mempool.has(txid)).toBe(true)
    h.chain.mine(1)
    expect(h.chain.chain.isConfirmed(txid)).toBe(true)
    expect(JSON.stringify(h.approvals.at(-1)!.items)).toContain('yours (change)')
    // afterBroadcast refreshes the account in the background, then emits.
    await vi.waitFor(
      () =>
        expect(h.events.slice(eventsBefore).map((event) => event.name)).toContain('bip122_addressesChanged'),
      { timeout: 30_000 },
    )
  })

  it('taproot: DEFAULT under the default [1], adds our BIP-86 tapInternalKey, 64-byte signature', async () => {
    const input = await fundOwn(86, 2, 40_000)
    const psbt = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey }],
      [{ script: external.script, value: 39_000 }],
    )
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: input.owner.address, index: 0 }],
    })
    expect(response.error).toBeUndefined()
    const signed = decode(response.result)
    expect(Buffer.from(signed.data.inputs[0]!.tapInternalKey!).toString('hex')).toBe(
      Buffer.from(input.owner.internalKey!).toString('hex'),
    )
    expect(signed.data.inputs[0]!.tapKeySig).toHaveLength(64)
    signed.finalizeAllInputs()
    const tx = signed.extractTransaction()
    const posted = await fetch(`${h.chain.url}/tx`, { method: 'POST', body: tx.toHex() })
    expect(await posted.text()).toBe(tx.getId())
  })

  it('multi-party: a foreign input signed by another key stays untouched and the combined PSBT finalizes', async () => {
    const ours = await fundOwn(84, 3, 60_000)
    const theirs = foreignParty('signPsbt co-signer')
    const theirOutpoint = h.chain.fund(theirs.address, 70_000)
    const psbt = buildPsbt(
      [
        { ...ours, script: ours.owner.scriptPubKey },
        { ...theirOutpoint, script: theirs.script, value: 70_000 },
      ],
      [{ script: external.script, value: 128_000 }],
    )
    // They sign first; we sign our input only and must leave theirs byte for byte as it was.
    psbt.signInput(1, theirs.signer)
    const theirInput = canonical(psbt.data.inputs[1])
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: ours.owner.address, index: 0 }],
    })
    expect(response.error).toBeUndefined()
    const combined = decode(response.result)
    expect(canonical(combined.data.inputs[1])).toBe(theirInput)
    expect(JSON.stringify(h.approvals.at(-1)!.items)).toContain('not yours')
    combined.finalizeAllInputs()
    const tx = combined.extractTransaction()
    expect(await (await fetch(`${h.chain.url}/tx`, { method: 'POST', body: tx.toHex() })).text()).toBe(
      tx.getId(),
    )
  })

  it('multi-party: we sign first, the other party adds its signature later, then broadcast', async () => {
    const ours = await fundOwn(84, 4, 60_000)
    const theirs = foreignParty('signPsbt second signer')
    const theirOutpoint = h.chain.fund(theirs.address, 30_000)
    const psbt = buildPsbt(
      [
        { ...ours, script: ours.owner.scriptPubKey },
        { ...theirOutpoint, script: theirs.script, value: 30_000 },
      ],
      [{ script: external.script, value: 89_000 }],
    )
    const first = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: ours.owner.address, index: 0 }],
    })
    const partially = decode(first.result)
    expect(partially.data.inputs[1]!.partialSig).toBeUndefined()
    partially.signInput(1, theirs.signer)
    partially.finalizeAllInputs()
    const tx = partially.extractTransaction()
    expect(await (await fetch(`${h.chain.url}/tx`, { method: 'POST', body: tx.toHex() })).text()).toBe(
      tx.getId(),
    )
  })

  it('SINGLE|ANYONECANPAY when listed: signed, with a caution warning', async () => {
    const input = await fundOwn(84, 5, 30_000)
    const psbt = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey, sighashType: 0x83 }],
      [{ script: external.script, value: 29_000 }],
    )
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: input.owner.address, index: 0, sighashTypes: [0x83] }],
    })
    expect(response.error).toBeUndefined()
    const signature = decode(response.result).data.inputs[0]!.partialSig![0]!.signature
    expect(signature.at(-1)).toBe(0x83)
    expect(h.approvals.at(-1)!.warnings.map((w) => w.code)).toEqual([
      'psbt.sighash_single',
      'psbt.sighash_anyonecanpay',
    ])
  })
})

describe('signPsbt: review warnings', () => {
  it('flags a dust output and a fee above half the outputs (caution, still signable)', async () => {
    const input = await fundOwn(84, 12, 30_000)
    const psbt = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey }],
      [
        { script: external.script, value: 10_000 },
        { script: foreignParty('dust').script, value: 100 },
      ],
    )
    const response = await h.call('signPsbt', {
      account: h.accountId,
      psbt: psbt.toBase64(),
      signInputs: [{ address: input.owner.address, index: 0 }],
    })
    expect(response.error).toBeUndefined()
    expect(h.approvals.at(-1)!.warnings.map((w) => [w.code, w.severity])).toEqual([
      ['psbt.dust_output', 'caution'],
      ['psbt.fee_high', 'caution'],
    ])
  })
})

describe('signPsbt: refusals (exact codes)', () => {
  let input: Awaited<ReturnType<typeof fundOwn>>
  beforeAll(async () => {
    input = await fundOwn(84, 6, 80_000)
  })
  /** The suite's one-input PSBT paying `value` out, with `spec` changed on the input. */
  const spending = (spec: Partial<PsbtInputSpec> = {}, value = 79_000) =>
    buildPsbt([{ ...input, script: input.owner.scriptPubKey, ...spec }], [{ script: external.script, value }])
  const base = (overrides: Record<string, unknown> = {}, psbtOverride?: bitcoin.Psbt) => ({
    account: h.accountId,
    psbt: (psbtOverride ?? spending()).toBase64(),
    signInputs: [{ address: input.owner.address, index: 0 }],
    ...overrides,
  })

  const cases: Array<[string, () => Promise<Record<string, unknown>>, number, Record<string, unknown>]> = [
    ['psbt not base64', async () => base({ psbt: 'not base64!' }), -32602, { path: 'psbt' }],
    [
      'base64 that is not a PSBT',
      async () => base({ psbt: Buffer.from('hello world').toString('base64') }),
      -32602,
      { path: 'psbt' },
    ],
    ['empty signInputs', async () => base({ signInputs: [] }), -32602, { path: 'signInputs' }],
    [
      'index out of range',
      async () => base({ signInputs: [{ address: input.owner.address, index: 1 }] }),
      -32602,
      { path: 'signInputs.0.index' },
    ],
    [
      'index listed twice',
      async () =>
        base({
          signInputs: [
            { address: input.owner.address, index: 0 },
            { address: input.owner.address, index: 0 },
          ],
        }),
      -32602,
      { path: 'signInputs.1.index' },
    ],
    [
      'unknown sighash type',
      async () => base({ signInputs: [{ address: input.owner.address, index: 0, sighashTypes: [4] }] }),
      -32602,
      {},
    ],
    [
      'address not ours',
      async () => base({ signInputs: [{ address: external.address, index: 0 }] }),
      4100,
      {},
    ],
    [
      'address ours but the input spends another script',
      async () => base({ signInputs: [{ address: (await h.address(84, 0, 7)).address, index: 0 }] }),
      -32602,
      { path: 'signInputs.0.address' },
    ],
    [
      'input without UTXO data',
      async () => base({}, spending({ witnessUtxo: false })),
      -32602,
      { path: 'signInputs.0' },
    ],
    [
      'PSBT sighash not on the allow-list',
      async () => base({}, spending({ sighashType: 0x83 })),
      -32602,
      { rule: 'psbt.sighash_not_allowed' },
    ],
    [
      'SIGHASH_NONE without the wallet opting in',
      async () =>
        base(
          { signInputs: [{ address: input.owner.address, index: 0, sighashTypes: [2] }] },
          spending({ sighashType: 2 }),
        ),
      -32602,
      { rule: 'psbt.sighash_none' },
    ],
    [
      'SIGHASH_SINGLE on an input without a matching output',
      async () => {
        const other = await fundOwn(84, 8, 10_000)
        return base(
          { signInputs: [{ address: other.owner.address, index: 1, sighashTypes: [3] }] },
          buildPsbt(
            [
              { ...input, script: input.owner.scriptPubKey },
              { ...other, script: other.owner.scriptPubKey, sighashType: 3 },
            ],
            [{ script: external.script, value: 85_000 }],
          ),
        )
      },
      -32602,
      { rule: 'psbt.sighash_single_without_output' },
    ],
    [
      'witnessUtxo amount lie (CVE-2020-14199 class)',
      async () =>
        base(
          {},
          buildPsbt(
            [{ ...input, value: 70_000, script: input.owner.scriptPubKey }],
            [{ script: external.script, value: 69_000 }],
          ),
        ),
      -32602,
      { rule: 'psbt.amount_mismatch' },
    ],
    ['outputs exceed inputs', async () => base({}, spending({}, 90_000)), -32602, { path: 'psbt' }],
    [
      'broadcast with a foreign input nobody signed',
      async () => {
        const theirs = foreignParty('unsigned co-signer')
        const outpoint = h.chain.fund(theirs.address, 20_000)
        return base(
          { broadcast: true },
          buildPsbt(
            [
              { ...input, script: input.owner.scriptPubKey },
              { ...outpoint, script: theirs.script, value: 20_000 },
            ],
            [{ script: external.script, value: 99_000 }],
          ),
        )
      },
      -32602,
      { path: 'psbt' },
    ],
    [
      'a P2PKH input without its parent transaction',
      async () => {
        const legacy = await fundOwn(44, 9, 20_000)
        return base(
          { signInputs: [{ address: legacy.owner.address, index: 0 }] },
          buildPsbt(
            [{ ...legacy, script: legacy.owner.scriptPubKey }],
            [{ script: external.script, value: 19_000 }],
          ),
        )
      },
      -32602,
      { path: 'signInputs.0' },
    ],
    [
      'taproot input to sign while another input has no UTXO data',
      async () => {
        const taproot = await fundOwn(86, 10, 20_000)
        const theirs = foreignParty('utxo-less co-signer')
        const outpoint = h.chain.fund(theirs.address, 20_000)
        return base(
          { signInputs: [{ address: taproot.owner.address, index: 0 }] },
          buildPsbt(
            [
              { ...taproot, script: taproot.owner.scriptPubKey },
              { ...outpoint, script: theirs.script, value: 20_000, witnessUtxo: false },
            ],
            [{ script: external.script, value: 39_000 }],
          ),
        )
      },
      -32602,
      { path: 'psbt' },
    ],
    [
      'a tapInternalKey that is not our BIP-86 key',
      async () => {
        const taproot = await fundOwn(86, 9, 20_000)
        return base(
          { signInputs: [{ address: taproot.owner.address, index: 0 }] },
          buildPsbt(
            [
              {
                ...taproot,
                script: taproot.owner.scriptPubKey,
                extra: { tapInternalKey: foreignParty('x').publicKey.subarray(1) },
              },
            ],
            [{ script: external.script, value: 19_000 }],
          ),
        )
      },
      -32602,
      { path: 'signInputs.0' },
    ],
  ]

  for (const [name, params, code, data] of cases) {
    it(`${name} → ${code}`, async () => {
      const approvals = h.approvals.length
      const response = await h.call('signPsbt', await params())
      expect(response.error?.code).toBe(code)
      expect(response.error?.data).toMatchObject(data)
      // Refused before approval: the user is never asked and no key is touched.
      expect(h.approvals.length).toBe(approvals)
    })
  }

  it('an already finalized listed input → -32602', async () => {
    const signed = await h.call('signPsbt', base())
    const psbt = decode(signed.result)
    psbt.finalizeAllInputs()
    const response = await h.call('signPsbt', base({}, psbt))
    expect(response.error).toMatchObject({ code: -32602, data: { path: 'signInputs.0' } })
  })

  it('a listed input our key already signed → -32602 before approval', async () => {
    const signed = decode((await h.call('signPsbt', base())).result)
    const approvals = h.approvals.length
    const response = await h.call('signPsbt', base({}, signed))
    expect(response.error).toMatchObject({ code: -32602, data: { path: 'signInputs.0' } })
    expect(h.approvals.length).toBe(approvals)
  })

  it('the user rejects → 5000 and nothing is signed', async () => {
    await withHarness({ chain: h.chain, approve: () => false }, async (rejecting) => {
      const response = await rejecting.call('signPsbt', base())
      expect(response.error).toEqual({ code: 5000, message: 'User rejected.' })
    })
  })

  it('SIGHASH_NONE is signed when the wallet allows the danger code', async () => {
    await withHarness({ chain: h.chain, allowDangerous: ['psbt.sighash_none'] }, async (permissive) => {
      const response = await permissive.call(
        'signPsbt',
        base(
          { signInputs: [{ address: input.owner.address, index: 0, sighashTypes: [2] }] },
          spending({ sighashType: 2 }),
        ),
      )
      expect(response.error).toBeUndefined()
      expect(decode(response.result).data.inputs[0]!.partialSig![0]!.signature.at(-1)).toBe(2)
    })
  })

  it('a fee rate above the cap → -32602 psbt.fee_rate_cap', async () => {
    await withHarness({ chain: h.chain, policy: { maxFeeRate: 5 } }, async (capped) => {
      const response = await capped.call('signPsbt', base())
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.fee_rate_cap' } })
    })
  })

  it('an absolute fee cap → -32602 psbt.fee_cap', async () => {
    await withHarness({ chain: h.chain, policy: { maxFeeSats: 500 } }, async (capped) => {
      const response = await capped.call('signPsbt', base())
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'psbt.fee_cap' } })
    })
  })

  it('without a chain provider: witnessUtxo-only v0 input refused, nonWitnessUtxo accepted', async () => {
    await withHarness({ chain: h.chain, provider: () => undefined }, async (offline) => {
      const refused = await offline.call('signPsbt', base())
      expect(refused.error).toMatchObject({ code: -32602, data: { rule: 'psbt.amount_unverified' } })
      const withParent = spending({ nonWitnessUtxo: await parentOf(h.chain, input.txid) })
      const accepted = await offline.call('signPsbt', base({}, withParent))
      expect(accepted.error).toBeUndefined()
      const broadcast = await offline.call('signPsbt', base({ broadcast: true }, withParent))
      expect(broadcast.error?.code).toBe(-32603)
    })
  })
})

describe('signPsbt: broadcast faults (never retried)', () => {
  for (const fault of [{ kind: 'http500' }, { kind: 'wrongTxid' }] as const) {
    it(`${fault.kind} → -32603 with the reason, one POST /tx`, async () => {
      const input = await fundOwn(84, fault.kind === 'http500' ? 10 : 11, 25_000)
      const psbt = buildPsbt(
        [{ ...input, script: input.owner.scriptPubKey }],
        [{ script: external.script, value: 24_000 }],
      )
      h.chain.injectBroadcastFault(fault)
      const before = h.chain.broadcastCount()
      const response = await h.call('signPsbt', {
        account: h.accountId,
        psbt: psbt.toBase64(),
        signInputs: [{ address: input.owner.address, index: 0 }],
        broadcast: true,
      })
      expect(response.error?.code).toBe(-32603)
      expect(JSON.stringify(response.error?.data)).toMatch(fault.kind === 'http500' ? /500/ : /expected/)
      expect(h.chain.broadcastCount()).toBe(before + 1)
    })
  }
})

describe('signPsbt with broadcast through the request journal', () => {
  it('one key twice: one transaction, the same answer, one approval; with the answer lost, the same bytes sent again', async () => {
    const input = await fundOwn(84, 14, 30_000)
    const psbt = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey }],
      [{ script: external.script, value: 29_000 }],
    )
    const request = {
      chainId,
      requestKey: 'psbt-order-1',
      request: {
        jsonrpc: '2.0' as const,
        id: 1,
        method: 'signPsbt',
        params: {
          account: h.accountId,
          psbt: psbt.toBase64(),
          signInputs: [{ address: input.owner.address, index: 0 }],
          broadcast: true,
        },
      },
    }
    const journal = memoryStorage()
    const approvals = h.approvals.length
    const broadcasts = h.chain.broadcastCount()
    const first = (await h.rpc.handle(request, { journal })) as { result: { txid: string } }
    expect(await h.rpc.handle(request, { journal })).toEqual(first)
    expect(h.chain.broadcastCount()).toBe(broadcasts + 1)
    // As after a crash between the broadcast and its answer: only the signed bytes are on record.
    for (const key of await journal.getKeys())
      if (/-(broadcast|answered)$/.test(key)) await journal.removeItem(key)
    expect(await h.rpc.handle(request, { journal })).toEqual(first)
    expect(h.approvals.length).toBe(approvals + 1)
    const { txid } = first.result
    expect(h.chain.chain.mempool.has(txid)).toBe(true)
    h.chain.mine(1)
    expect(h.chain.chain.isConfirmed(txid)).toBe(true)
  })
})

describe('signPsbt: arbitrary params never become an internal error', () => {
  it('every answer is a result or a -32602 / 4100 refusal', async () => {
    const input = await fundOwn(84, 13, 30_000)
    const valid = buildPsbt(
      [{ ...input, script: input.owner.scriptPubKey }],
      [{ script: external.script, value: 29_000 }],
    ).toBase64()
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            account: fc.oneof(
              fc.constant(h.accountId),
              fc.constant(input.owner.address),
              fc.string(),
              fc.anything(),
            ),
            psbt: fc.oneof(fc.constant(valid), fc.base64String(), fc.anything()),
            signInputs: fc.oneof(
              fc.constant([{ address: input.owner.address, index: 0 }]),
              fc.array(
                fc.record({
                  address: fc.oneof(fc.constant(input.owner.address), fc.string()),
                  index: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.double()),
                  sighashTypes: fc.option(fc.array(fc.integer({ min: -1, max: 256 }), { maxLength: 3 }), {
                    nil: undefined,
                  }),
                }),
                { maxLength: 3 },
              ),
              fc.anything(),
            ),
            // Never `true`: a real broadcast is covered above; here only refusals and plain signing.
            broadcast: fc.oneof(fc.constant(false), fc.string(), fc.integer()),
          },
          { requiredKeys: [] },
        ),
        async (params) => {
          const response = await h.call('signPsbt', params)
          if (response.error) expect([-32602, 4100]).toContain(response.error.code)
        },
      ),
      { numRuns: 120 },
    )
  })
})
