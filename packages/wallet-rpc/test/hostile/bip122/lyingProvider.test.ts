import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import * as bitcoin from 'bitcoinjs-lib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainProvider, Purpose } from '../../../src/bip122/types.js'
import { buildPsbt, foreignParty, withHarness } from '../../bip122/psbtFixture.js'

/**
 * A chain provider that lies about amounts. A P2PKH signature commits to no amount and a segwit v0 one to
 * its own input's only, so a wallet that takes a coin's value from the provider's word would sign a
 * transaction whose real fee is whatever the provider hid (1,000,000 sat listed as 100,000: ~900,000 sat of
 * fee while the review shows a few hundred). The rule: the value of every non-taproot input the wallet
 * signs comes from the coin's own transaction, checked to hash to its txid.
 */
let chain: BitcoinRegtest
beforeAll(async () => {
  chain = await startBitcoinRegtest()
})
afterAll(() => chain.stop())

const recipient = foreignParty('lying provider recipient')

type Lies = {
  value?: (real: number) => number
  rawTransaction?: (txid: string, real: ChainProvider) => Promise<Uint8Array>
}

/** The real provider with some answers replaced, counting fetches of parents and broadcasts. */
function liar(lies: Lies) {
  const counts = { rawTransaction: new Map<string, number>(), broadcasts: 0 }
  const wrap = (real: ChainProvider): ChainProvider => {
    const rawTransaction = (txid: string) => {
      counts.rawTransaction.set(txid, (counts.rawTransaction.get(txid) ?? 0) + 1)
      return lies.rawTransaction ? lies.rawTransaction(txid, real) : real.rawTransaction(txid)
    }
    return {
      ...real,
      utxos: async (address) =>
        (await real.utxos(address)).map((utxo) => ({
          ...utxo,
          value: lies.value?.(utxo.value) ?? utxo.value,
        })),
      rawTransaction,
      // The batch the wallet uses (esplora's) tells the same lies.
      rawTransactions: (txids) => Promise.all(txids.map(rawTransaction)),
      broadcast: (raw) => {
        counts.broadcasts++
        return real.broadcast(raw)
      },
    }
  }
  return { wrap, counts }
}

const transfer = (amount: string) => ({ recipientAddress: recipient.address, amount })

describe('sendTransfer against a provider that lies about a coin’s amount', () => {
  for (const purpose of [44, 49, 84] as Purpose[]) {
    for (const [lie, listed] of [
      ['understates', (real: number) => real / 10],
      ['overstates', (real: number) => real * 2],
      ['shaves one satoshi off', (real: number) => real - 1],
    ] as const) {
      it(`BIP-${purpose} coin: a provider that ${lie} it is refused before approval; nothing is broadcast`, async () => {
        const { wrap, counts } = liar({ value: listed })
        await withHarness({ chain, provider: wrap }, async (wallet) => {
          const coin = await wallet.address(purpose, 0, 0)
          chain.fund(coin.address, 1_000_000)
          const answer = await wallet.call('sendTransfer', {
            account: wallet.accountId,
            ...transfer('50000'),
          })
          expect(answer.error?.code).toBe(-32603)
          expect(answer.error?.data).toMatchObject({
            reason: expect.stringMatching(
              new RegExp(
                `lists [0-9a-f]{64}:\\d+ as ${listed(1_000_000)} sat, its transaction says 1000000 sat$`,
              ),
            ),
          })
          expect(wallet.approvals).toHaveLength(0)
          expect(counts.broadcasts).toBe(0)
          chain.mine(1)
        })
      })
    }
  }

  it('a provider that answers another transaction for the txid is refused', async () => {
    const decoy = chain.fund(recipient.address, 5_000)
    const { wrap, counts } = liar({ rawTransaction: (_txid, real) => real.rawTransaction(decoy.txid) })
    await withHarness({ chain, provider: wrap }, async (wallet) => {
      const coin = await wallet.address(84, 0, 1)
      chain.fund(coin.address, 300_000)
      const answer = await wallet.call('sendTransfer', { account: wallet.accountId, ...transfer('50000') })
      expect(answer.error?.code).toBe(-32603)
      expect(JSON.stringify(answer.error?.data)).toContain('returned another transaction')
      expect(wallet.approvals).toHaveLength(0)
      expect(counts.broadcasts).toBe(0)
    })
  })

  it('a provider whose transaction bytes do not parse is refused with a reason, not a crash', async () => {
    const { wrap } = liar({ rawTransaction: async () => Uint8Array.of(1, 2, 3) })
    await withHarness({ chain, provider: wrap }, async (wallet) => {
      chain.fund((await wallet.address(84, 0, 2)).address, 300_000)
      const answer = await wallet.call('sendTransfer', { account: wallet.accountId, ...transfer('50000') })
      expect(answer.error?.code).toBe(-32603)
      expect(JSON.stringify(answer.error?.data)).toContain('does not parse')
      expect(wallet.approvals).toHaveLength(0)
    })
  })

  it('an honest provider: each parent is fetched once, however many requests spend it', async () => {
    const { wrap, counts } = liar({})
    await withHarness({ chain, provider: wrap, approve: () => false }, async (wallet) => {
      chain.fund((await wallet.address(84, 0, 3)).address, 400_000)
      for (let i = 0; i < 3; i++) {
        const answer = await wallet.call('sendTransfer', { account: wallet.accountId, ...transfer('50000') })
        expect(answer.error?.code).toBe(5000) // reached the user, who said no
      }
      expect(wallet.approvals).toHaveLength(3)
      expect(counts.rawTransaction.size).toBeGreaterThan(0)
      expect([...counts.rawTransaction.values()]).toEqual([...counts.rawTransaction.values()].map(() => 1))
    })
  })
})

describe('signPsbt: the provider’s UTXO list is not proof of an amount', () => {
  it('a PSBT and a provider telling the same lie about a segwit v0 coin are refused (amount_mismatch)', async () => {
    const { wrap, counts } = liar({ value: () => 70_000 })
    await withHarness({ chain, provider: wrap }, async (wallet) => {
      const coin = await wallet.address(84, 0, 4)
      const funded = chain.fund(coin.address, 100_000)
      const psbt = buildPsbt(
        [{ ...funded, script: coin.scriptPubKey, value: 70_000 }],
        [{ script: recipient.script, value: 69_000 }],
      )
      const answer = await wallet.call('signPsbt', {
        account: wallet.accountId,
        psbt: psbt.toBase64(),
        signInputs: [{ address: coin.address, index: 0, sighashTypes: [bitcoin.Transaction.SIGHASH_ALL] }],
      })
      expect(answer.error?.code).toBe(-32602)
      expect(answer.error?.data).toMatchObject({ rule: 'psbt.amount_mismatch' })
      expect(JSON.stringify(answer.error?.data)).toContain(
        'the PSBT says 70000 sat, the chain says 100000 sat',
      )
      expect(wallet.approvals).toHaveLength(0)
      expect(counts.rawTransaction.get(funded.txid)).toBe(1)
    })
  })

  it('the two-round segwit fee attack: understating one input across two PSBTs never gets a signature', async () => {
    const { wrap } = liar({})
    await withHarness({ chain, provider: wrap }, async (wallet) => {
      const a = await wallet.address(84, 0, 5)
      const b = await wallet.address(84, 0, 6)
      const coinA = chain.fund(a.address, 200_000)
      const coinB = chain.fund(b.address, 200_000)
      // Round 1 understates A, round 2 understates B: each round's total looks like a small fee.
      for (const [lowered, honest] of [
        [coinA, coinB],
        [coinB, coinA],
      ] as const) {
        const script = (coin: typeof coinA) => (coin === coinA ? a.scriptPubKey : b.scriptPubKey)
        const psbt = buildPsbt(
          [
            { ...lowered, script: script(lowered), value: 10_000 },
            { ...honest, script: script(honest), value: 200_000 },
          ],
          [{ script: recipient.script, value: 209_000 }],
        )
        const answer = await wallet.call('signPsbt', {
          account: wallet.accountId,
          psbt: psbt.toBase64(),
          signInputs: [
            { address: (lowered === coinA ? a : b).address, index: 0, sighashTypes: [1] },
            { address: (honest === coinA ? a : b).address, index: 1, sighashTypes: [1] },
          ],
        })
        expect(answer.error?.data).toMatchObject({ rule: 'psbt.amount_mismatch' })
      }
      expect(wallet.approvals).toHaveLength(0)
    })
  })
})
