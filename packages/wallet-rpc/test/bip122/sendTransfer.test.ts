import * as ecc from '@bitcoinerlab/secp256k1'
import { sha256 } from '@noble/hashes/sha2.js'
import type { BitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import * as bitcoin from 'bitcoinjs-lib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { singleKey } from '../../src/bip122/keys/singleKey.js'
import type { ChainProvider, KeyProvider } from '../../src/bip122/types.js'
import { markOutcomeUnknown, ProviderError } from '../../src/core/errors.js'
import { foreignParty, type Harness, mnemonic, network, startHarness, withHarness } from './psbtFixture.js'

// The test's own P2TR addresses (bitcoinjs keeps its secp256k1 backend process-global).
bitcoin.initEccLib(ecc)

// sendTransfer through the real router and esplora() provider against the embedded regtest chain. Each
// test gets its own chain so UTXO sets do not leak between them.

const recipient = foreignParty('sendTransfer recipient')
let chain: BitcoinRegtest
let h: Harness

beforeAll(async () => {
  h = await startHarness()
  chain = h.chain
})
afterAll(async () => {
  await h.stop()
})

type Call = Awaited<ReturnType<Harness['call']>>

const txidOf = (call: Call) => (call.result as { txid: string }).txid

function transactionOf(txid: string, on: BitcoinRegtest = chain) {
  return bitcoin.Transaction.fromBuffer(on.chain.rawTransaction(txid)!)
}

/** One sendTransfer of `amount` sat to the recipient, from `wallet` (the shared one unless given). */
function transfer(amount: string, extra: Record<string, unknown> = {}, wallet: Harness = h): Promise<Call> {
  return wallet.call('sendTransfer', {
    account: wallet.accountId,
    recipientAddress: recipient.address,
    amount,
    ...extra,
  })
}

/** `txid:vout` of every coin the answered transfers spent. */
function spentOutpoints(on: BitcoinRegtest, calls: Call[]): string[] {
  return calls.flatMap((call) =>
    transactionOf(txidOf(call), on).ins.map(
      (input) => `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`,
    ),
  )
}

describe('sendTransfer', () => {
  it('pays the recipient, writes the memo, sends change to a fresh internal address, and the chain accepts it', async () => {
    const funding = await h.address(84, 0, 0)
    chain.fund(funding.address, 100_000)
    const eventsBefore = h.events.length
    const response = await transfer('30000', { memo: '636861726c6579206c6f766573206865' })
    expect(response.error).toBeUndefined()
    const { txid } = response.result as { txid: string }
    expect(chain.chain.mempool.has(txid)).toBe(true)
    const tx = transactionOf(txid)
    expect(tx.ins.every((input) => input.sequence === 0xfffffffd)).toBe(true)
    const [pay, memo, change] = tx.outs
    expect(bitcoin.address.fromOutputScript(pay!.script, network)).toBe(recipient.address)
    expect(pay!.value).toBe(30_000n)
    expect(Buffer.from(memo!.script).toString('hex')).toBe('6a10636861726c6579206c6f766573206865')
    expect(memo!.value).toBe(0n)
    const changeOwner = await h.namespace.wallet
      .chain(chain.chainId)
      .then(({ account }) => account.findScript(change!.script))
    expect(changeOwner).toMatchObject({ purpose: 84, change: 1 })
    expect(changeOwner!.address).not.toBe(h.accountId)
    const fee = 100_000n - 30_000n - change!.value
    expect(Number(fee)).toBeGreaterThanOrEqual(tx.virtualSize() * 2)
    const review = h.approvals.at(-1)!
    expect(review.title).toBe('Send bitcoin')
    expect(JSON.stringify(review.items)).toContain('charley loves he')
    expect(review.warnings.map((w) => w.code)).toEqual(['transfer.memo_public'])
    chain.mine(1)
    expect(chain.chain.isConfirmed(txid)).toBe(true)
    await vi.waitFor(
      () => expect(h.events.slice(eventsBefore).map((e) => e.name)).toContain('bip122_addressesChanged'),
      {
        timeout: 30_000,
      },
    )
  })

  it('pays a taproot (bech32m) recipient', async () => {
    const taprootRecipient = bitcoin.payments.p2tr({
      internalPubkey: recipient.publicKey.subarray(1),
      network,
    }).address!
    const response = await h.call('sendTransfer', {
      account: h.accountId,
      recipientAddress: taprootRecipient,
      amount: '7000',
    })
    expect(response.error).toBeUndefined()
    const out = transactionOf(txidOf(response)).outs[0]!
    expect(bitcoin.address.fromOutputScript(out.script, network)).toBe(taprootRecipient)
    chain.mine(1)
  })

  it('the next transfer uses the next fresh change address', async () => {
    const first = await transfer('5000')
    expect(first.error).toBeUndefined()
    const second = await transfer('5000')
    expect(second.error).toBeUndefined()
    const changeOf = (call: Call) => transactionOf(txidOf(call)).outs.at(-1)!.script
    expect(Buffer.from(changeOf(first)).equals(Buffer.from(changeOf(second)))).toBe(false)
    chain.mine(1)
  })

  it('sends change to changeAddress when it is ours; refuses one that is not (4100)', async () => {
    const mine = await h.address(84, 0, 5)
    const ok = await transfer('4000', { changeAddress: mine.address })
    expect(ok.error).toBeUndefined()
    const outs = transactionOf(txidOf(ok)).outs
    expect(outs.some((out) => bitcoin.address.fromOutputScript(out.script, network) === mine.address)).toBe(
      true,
    )
    const refused = await transfer('4000', { changeAddress: foreignParty('not ours').address })
    expect(refused.error?.code).toBe(4100)
    chain.mine(1)
  })

  it('leaves no dust change: a remainder below the limit goes to the fee', async () => {
    await withHarness({}, async (wallet) => {
      const fresh = wallet.chain
      fresh.fund((await wallet.address(84, 0, 0)).address, 10_000)
      // One P2WPKH input, two outputs ≈ 141 vB at 2 sat/vB: 10 000 − 9 500 − 282 leaves 218 < 294 sat.
      const response = await transfer('9500', {}, wallet)
      expect(response.error).toBeUndefined()
      const tx = transactionOf(txidOf(response), fresh)
      expect(tx.outs).toHaveLength(1)
      expect(JSON.stringify(wallet.approvals.at(-1)!.items)).toContain(
        'none (a remainder below the dust limit goes to the fee)',
      )
    })
  })

  it('amount as a safe-integer JSON number (as AppKit passes it on) pays exactly that many satoshis', async () => {
    await withHarness({}, async (wallet) => {
      wallet.chain.fund((await wallet.address(84, 0, 0)).address, 100_000)
      const response = await wallet.call('sendTransfer', {
        account: wallet.accountId,
        recipientAddress: recipient.address,
        amount: 30_000,
      })
      expect(response.error).toBeUndefined()
      const tx = transactionOf(txidOf(response), wallet.chain)
      const paid = tx.outs.filter(
        (out) => bitcoin.address.fromOutputScript(out.script, network) === recipient.address,
      )
      expect(paid.map((out) => out.value)).toEqual([30_000n])
      expect(JSON.stringify(wallet.approvals.at(-1)!.items)).toContain('0.00030000 BTC (30000 sat)')
    })
  })

  it('never spends taproot (ordinal) coins in a plain transfer', async () => {
    await withHarness({}, async (wallet) => {
      const fresh = wallet.chain
      fresh.fund((await wallet.address(86, 0, 0)).address, 500_000)
      const response = await transfer('1000', {}, wallet)
      expect(response.error).toMatchObject({ code: -32602, data: { path: 'amount' } })
      expect(JSON.stringify(response.error?.data)).toContain('insufficient funds')
    })
  })
})

describe('sendTransfer: parameter refusals (exact codes)', () => {
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    // The WalletConnect docs' example recipient: its bech32m checksum is wrong.
    [
      'bad checksum (WalletConnect docs example)',
      { recipientAddress: 'bc1pmzfrwwndsqmk5yh69yjr5lfgfg4ev8c0tsc06e' },
      -32602,
      'recipientAddress',
    ],
    [
      'mainnet recipient on regtest',
      { recipientAddress: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
      -32602,
      'recipientAddress',
    ],
    ['not an address', { recipientAddress: 'hello' }, -32602, 'recipientAddress'],
    ['amount zero', { amount: '0' }, -32602, 'amount'],
    ['amount negative', { amount: '-5' }, -32602, 'amount'],
    ['amount fractional', { amount: '1.5' }, -32602, 'amount'],
    // A JSON number is accepted only as a safe, non-negative integer (AppKit passes numbers through).
    ['amount as a fractional number', { amount: 1000.5 }, -32602, 'amount'],
    ['amount as a negative number', { amount: -1000 }, -32602, 'amount'],
    ['amount as the number 0', { amount: 0 }, -32602, 'amount'],
    ['amount as a number past 2^53 - 1', { amount: 2 ** 53 }, -32602, 'amount'],
    ['amount as 1e21', { amount: 1e21 }, -32602, 'amount'],
    ['amount as a number below dust', { amount: 293 }, -32602, 'amount'],
    ['amount as a boolean', { amount: true }, -32602, 'amount'],
    ['amount with leading zero', { amount: '01000' }, -32602, 'amount'],
    ['amount above the supply', { amount: '2100000000000001' }, -32602, 'amount'],
    ['amount below dust', { amount: '293' }, -32602, 'amount'],
    ['memo not hex', { memo: 'zz' }, -32602, 'memo'],
    ['memo odd length', { memo: 'abc' }, -32602, 'memo'],
    ['memo with 0x', { memo: '0x1234' }, -32602, 'memo'],
    ['memo over 80 bytes', { memo: 'ab'.repeat(81) }, -32602, 'memo'],
    ['memo empty', { memo: '' }, -32602, 'memo'],
    [
      'changeAddress of another network',
      { changeAddress: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
      -32602,
      'changeAddress',
    ],
    ['insufficient funds', { amount: '2000000000000000' }, -32602, 'amount'],
  ]
  for (const [name, overrides, code, path] of cases) {
    it(`${name} → ${code} at ${path}`, async () => {
      const approvals = h.approvals.length
      const response = await h.call('sendTransfer', {
        account: h.accountId,
        recipientAddress: recipient.address,
        amount: '1000',
        ...overrides,
      })
      expect(response.error).toMatchObject({ code, data: { path } })
      expect(h.approvals.length).toBe(approvals)
    })
  }

  it('a number past 2^53 - 1 is refused saying to send a decimal string', async () => {
    const response = await h.call('sendTransfer', {
      account: h.accountId,
      recipientAddress: recipient.address,
      amount: 2 ** 53,
    })
    expect(response.error).toMatchObject({
      code: -32602,
      data: { path: 'amount', reason: expect.stringMatching(/send a decimal string$/) },
    })
  })

  it('an account that is not ours → 4100', async () => {
    const response = await h.call('sendTransfer', {
      account: recipient.address,
      recipientAddress: recipient.address,
      amount: '1000',
    })
    expect(response.error?.code).toBe(4100)
  })

  it('an 80-byte memo is accepted and mined', async () => {
    const response = await transfer('1000', { memo: 'ab'.repeat(80) })
    expect(response.error).toBeUndefined()
    chain.mine(1)
    expect(chain.chain.isConfirmed(txidOf(response))).toBe(true)
  })

  it('a chain fee rate above the wallet cap → -32602 transfer.fee_rate_cap', async () => {
    chain.chain.feeRate = 5_000
    try {
      const response = await transfer('1000')
      expect(response.error).toMatchObject({ code: -32602, data: { rule: 'transfer.fee_rate_cap' } })
    } finally {
      chain.chain.feeRate = 2
    }
  })
})

describe('sendTransfer: concurrency and faults', () => {
  it('20 concurrent transfers never pick the same coin; all are accepted', async () => {
    await withHarness({}, async (wallet) => {
      const fresh = wallet.chain
      for (let i = 0; i < 20; i++) fresh.fund((await wallet.address(84, 0, i % 4)).address, 50_000)
      const responses = await Promise.all(Array.from({ length: 20 }, () => transfer('20000', {}, wallet)))
      expect(responses.map((r) => JSON.stringify(r.error ?? null))).toEqual(Array(20).fill('null'))
      const spent = spentOutpoints(fresh, responses)
      expect(new Set(spent).size).toBe(spent.length)
      fresh.mine(1)
      for (const response of responses) expect(fresh.chain.isConfirmed(txidOf(response))).toBe(true)
    })
  })

  it('20 concurrent transfers over 5 coins: the unfundable ones are refused cleanly, no coin twice', async () => {
    await withHarness({}, async (wallet) => {
      const fresh = wallet.chain
      for (let i = 0; i < 5; i++) fresh.fund((await wallet.address(84, 0, i)).address, 50_000)
      const responses = await Promise.all(Array.from({ length: 20 }, () => transfer('40000', {}, wallet)))
      const accepted = responses.filter((r) => r.error === undefined)
      const refused = responses.filter((r) => r.error !== undefined)
      expect(accepted.length).toBeGreaterThanOrEqual(5)
      for (const response of refused) {
        expect(response.error).toMatchObject({ code: -32602, data: { path: 'amount' } })
      }
      const spent = spentOutpoints(fresh, accepted)
      expect(new Set(spent).size).toBe(spent.length)
    })
  })

  for (const fault of [{ kind: 'http500' }, { kind: 'wrongTxid' }] as const) {
    it(`broadcast ${fault.kind} → -32603 with the reason, sent once, coins released`, async () => {
      await withHarness({}, async (wallet) => {
        const fresh = wallet.chain
        fresh.fund((await wallet.address(84, 0, 0)).address, 50_000)
        fresh.injectBroadcastFault(fault)
        const failed = await transfer('10000', {}, wallet)
        expect(failed.error?.code).toBe(-32603)
        expect(JSON.stringify(failed.error?.data)).toMatch(fault.kind === 'http500' ? /500/ : /expected/)
        expect(fresh.broadcastCount()).toBe(1)
        if (fault.kind === 'http500') {
          // Released: the same coin funds the next transfer.
          const retried = await transfer('10000', {}, wallet)
          expect(retried.error).toBeUndefined()
          expect(fresh.broadcastCount()).toBe(2)
        }
      })
    })
  }

  it('broadcast timeout → -32603, not retried, its coins held', async () => {
    await withHarness({ timeoutMs: 4_000 }, async (wallet) => {
      const fresh = wallet.chain
      fresh.fund((await wallet.address(84, 0, 0)).address, 50_000)
      fresh.injectBroadcastFault({ kind: 'hang' })
      const failed = await transfer('10000', {}, wallet)
      expect(failed.error?.code).toBe(-32603)
      expect(fresh.broadcastCount()).toBe(1)
      // Its outcome is unknown (here the chain took it), so its coin stays spent: the next transfer pays from
      // the change instead of double-spending the coin, which the chain would refuse.
      const next = await transfer('10000', {}, wallet)
      expect(next.error).toBeUndefined()
      expect(fresh.broadcastCount()).toBe(2)
    })
  })

  it('a broadcast whose outcome is unknown keeps its coins spent; a refused one gives them back', async () => {
    let outcome: 'unknown' | 'refused' = 'unknown'
    let broadcasts = 0
    // Nothing reaches the chain: only what the provider says differs.
    const provider = (real: ChainProvider): ChainProvider => ({
      ...real,
      broadcast: async () => {
        broadcasts++
        throw outcome === 'unknown'
          ? markOutcomeUnknown(
              new ProviderError('broadcast outcome unknown (it may have been sent): timeout'),
            )
          : new ProviderError('broadcast rejected: 400 min relay fee not met')
      },
    })
    await withHarness({ provider }, async (wallet) => {
      wallet.chain.fund((await wallet.address(84, 0, 0)).address, 50_000)
      outcome = 'refused'
      expect((await transfer('10000', {}, wallet)).error?.code).toBe(-32603)
      outcome = 'unknown'
      expect((await transfer('10000', {}, wallet)).error?.code).toBe(-32603)
      // The one coin may be out in those bytes: the next transfer has nothing to spend.
      expect((await transfer('10000', {}, wallet)).error).toMatchObject({
        code: -32602,
        data: { path: 'amount' },
      })
      expect(broadcasts).toBe(2)
    })
  })

  it('a declined transfer releases its coins at once', async () => {
    let answer = false
    // A fixed clock and a minute's reservation: only the decline itself can free the coin.
    const options = {
      clock: () => 1_800_000_000_000,
      approve: () => answer,
      policy: { reservationMs: 60_000 },
    }
    await withHarness(options, async (wallet) => {
      wallet.chain.fund((await wallet.address(84, 0, 0)).address, 50_000)
      expect((await transfer('10000', {}, wallet)).error?.code).toBe(5000)
      // The router told the method it was declined: the only coin is free again for the next request.
      answer = true
      expect((await transfer('10000', {}, wallet)).error).toBeUndefined()
    })
  })
})

describe('sendTransfer: fresh coins', () => {
  it('reads the chain again when the cached coins cannot pay, so coins that just arrived are spent', async () => {
    await withHarness({ cacheMs: 60_000 }, async (wallet) => {
      // A listing caches the (empty) discovery for a minute; the coins arrive right after it.
      expect(await wallet.call('getAccountAddresses', { account: wallet.accountId })).toHaveProperty('result')
      wallet.chain.fund((await wallet.address(84, 0, 3)).address, 80_000)
      const sent = await transfer('20000', {}, wallet)
      expect(sent.error).toBeUndefined()
      expect(wallet.chain.chain.mempool.has(txidOf(sent))).toBe(true)
    })
  })
})

describe('sendTransfer: keys and static wallets', () => {
  it('no key is touched before approval; a declined transfer signs nothing', async () => {
    const inner = hdKeys({ mnemonic })
    const signed: string[] = []
    let approveNext = false
    const keys: KeyProvider = {
      kind: inner.kind,
      account: inner.account,
      publicKey: (path) => inner.publicKey(path),
      signEcdsa: async (path, hash) => {
        signed.push(`ecdsa ${path.purpose}/${path.change}/${path.index}`)
        return inner.signEcdsa(path, hash)
      },
      signTaproot: async (path, hash, aux) => {
        signed.push(`taproot ${path.purpose}/${path.change}/${path.index}`)
        return inner.signTaproot(path, hash, aux)
      },
    }
    const approve = () => {
      expect(signed).toEqual([]) // asked before anything was signed
      return approveNext
    }
    await withHarness({ keys, approve }, async (wallet) => {
      wallet.chain.fund((await wallet.address(84, 0, 0)).address, 50_000)
      const declined = await transfer('10000', {}, wallet)
      expect(declined.error?.code).toBe(5000)
      expect(signed).toEqual([])
      // The decline released the coin (Method.abandon): the same wallet spends it once approved.
      approveNext = true
      const sent = await transfer('10000', {}, wallet)
      expect(sent.error).toBeUndefined()
      expect(signed).toEqual(['ecdsa 84/0/0'])
    })
  })

  for (const addressType of ['p2wpkh', 'p2tr'] as const) {
    it(`a key provider's invalid ${addressType} signature is caught before broadcast; nothing is sent, the coin is released`, async () => {
      const inner = singleKey({
        privateKey: sha256(new TextEncoder().encode(`faulty ${addressType}`)),
        addressType,
      })
      let faulty = true
      // A faulty signer: a well-formed signature of another digest (the last byte flipped).
      const other = (hash: Uint8Array) => Uint8Array.from(hash, (byte, i) => (i === 31 ? byte ^ 1 : byte))
      const keys: KeyProvider = {
        ...inner,
        signEcdsa: (path, hash) => inner.signEcdsa(path, faulty ? other(hash) : hash),
        signTaproot: (path, hash, aux) => inner.signTaproot(path, faulty ? other(hash) : hash, aux),
      }
      let broadcasts = 0
      const provider = (real: ChainProvider): ChainProvider => ({
        ...real,
        broadcast: (raw) => {
          broadcasts++
          return real.broadcast(raw)
        },
      })
      await withHarness({ keys, provider }, async (wallet) => {
        wallet.chain.fund(wallet.accountId, 50_000)
        const refused = await transfer('10000', {}, wallet)
        expect(refused.error?.data).toMatchObject({
          reason: 'the key provider produced an invalid signature; nothing was sent',
        })
        expect(broadcasts).toBe(0)
        faulty = false
        const sent = await transfer('10000', {}, wallet)
        expect(sent.error).toBeUndefined()
        expect(broadcasts).toBe(1)
      })
    })
  }

  for (const addressType of ['p2wpkh', 'p2tr'] as const) {
    it(`static ${addressType} wallet: spends its one address, change back to it (it has no other)`, async () => {
      const keys = singleKey({
        privateKey: sha256(new TextEncoder().encode(`static ${addressType}`)),
        addressType,
      })
      await withHarness({ keys }, async (wallet) => {
        wallet.chain.fund(wallet.accountId, 80_000)
        const response = await transfer('20000', {}, wallet)
        expect(response.error).toBeUndefined()
        const tx = transactionOf(txidOf(response), wallet.chain)
        expect(bitcoin.address.fromOutputScript(tx.outs[1]!.script, network)).toBe(wallet.accountId)
        wallet.chain.mine(1)
      })
    })
  }

  it('a transfer heavier than the 400,000 weight units nodes relay is refused before approval, its coins released', async () => {
    // P2PKH coins weigh 592 WU each as inputs: the 700 or more this amount needs cannot go in one standard transaction.
    const keys = singleKey({
      privateKey: sha256(new TextEncoder().encode('many small coins')),
      addressType: 'p2pkh',
    })
    await withHarness({ keys }, async (wallet) => {
      for (let i = 0; i < 1000; i++) wallet.chain.fund(wallet.accountId, 10_000)
      const approvalsBefore = wallet.approvals.length
      const refused = await transfer('7000000', {}, wallet)
      expect(refused.error).toMatchObject({ code: -32602, data: { rule: 'transfer.too_large' } })
      expect(JSON.stringify(refused.error)).toMatch(/over the 400000 nodes relay/)
      expect(wallet.approvals.length).toBe(approvalsBefore)
      expect(wallet.chain.broadcastCount()).toBe(0)
      // Released: a transfer that fits takes the same coins at once.
      const fits = await transfer('2000000', {}, wallet)
      expect(fits.error).toBeUndefined()
      expect(wallet.chain.chain.mempool.has(txidOf(fits))).toBe(true)
    })
  }, 120_000)
})
