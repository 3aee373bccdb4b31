import {
  type CoreNode,
  connectCoreNode,
  litecoindPath,
  startLitecoind,
} from '@wallet-rpc/devchains/litecoind'
import * as bitcoin from 'bitcoinjs-lib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type BitcoinCoreProvider, bitcoinCore } from '../../src/bip122/providers/bitcoinCore.js'
import type { AccountAddress } from '../../src/bip122/types.js'
import { buildPsbt, foreignParty, type Harness, startHarness } from './psbtFixture.js'

/**
 * Every kind of transaction the wallet signs, judged by a real Bitcoin-Core-derived consensus engine:
 * Litecoin Core 0.21 in regtest (the Bitcoin Core 0.21 interpreter, BIP-143/341, taproot active), or
 * the bitcoind at BITCOIND_RPC_URL. Reached only through the `bitcoinCore()` provider (raw script
 * descriptors), so the wallet's Bitcoin regtest addresses work unchanged on a node whose own address
 * format (rltc…) differs.
 */

const externalUrl = process.env.BITCOIND_RPC_URL
const available = externalUrl !== undefined || litecoindPath() !== undefined
if (!available) {
  console.warn(
    '\n[bip122] NOTICE: litecoind not found (apt-get install litecoind, or set BITCOIND_RPC_URL): ' +
      'the real-node suite test/bip122/litecoind.test.ts is SKIPPED.\n',
  )
}

// CI can insist (REQUIRE_LITECOIND=1): then a missing node is a failure, not a skip.
describe.runIf(!available && process.env.REQUIRE_LITECOIND === '1')('real node required', () => {
  it('litecoind or BITCOIND_RPC_URL is present', () => {
    expect.fail('REQUIRE_LITECOIND=1 but no litecoind binary and no BITCOIND_RPC_URL')
  })
})

describe.skipIf(!available)(
  'real node (litecoind / bitcoind): every signed transaction is accepted and mined',
  () => {
    let node: CoreNode
    let provider: BitcoinCoreProvider
    let h: Harness
    const external = foreignParty('litecoind recipient')

    beforeAll(async () => {
      node = externalUrl ? await connectCoreNode(externalUrl) : await startLitecoind()
      provider = bitcoinCore({ url: node.url, auth: node.auth })
      h = await startHarness({ provider: () => provider })
    }, 60_000)
    afterAll(async () => {
      await h?.stop()
      await node?.stop()
    }, 60_000)

    async function fund(owner: AccountAddress, sats: number) {
      const outpoint = await node.fund(owner.scriptPubKey, sats)
      return { owner, ...outpoint, value: sats }
    }

    async function parent(txid: string): Promise<Uint8Array> {
      return Buffer.from(await node.rpc<string>('getrawtransaction', [txid, false]), 'hex')
    }

    async function confirmations(txid: string): Promise<number> {
      const tx = await node.rpc<{ confirmations?: number }>('getrawtransaction', [txid, true])
      return tx.confirmations ?? 0
    }

    it('P2PKH, P2SH-P2WPKH, P2WPKH and P2TR inputs: testmempoolaccept, a flipped bit rejected per input, then mined', async () => {
      const inputs = [
        await fund(await h.address(44, 0, 0), 60_000),
        await fund(await h.address(49, 0, 0), 60_000),
        await fund(await h.address(84, 0, 0), 60_000),
        await fund(await h.address(86, 0, 0), 60_000),
      ]
      const specs = await Promise.all(
        inputs.map(async (input) => ({
          ...input,
          script: input.owner.scriptPubKey,
          ...(input.owner.addressType === 'p2pkh'
            ? { nonWitnessUtxo: await parent(input.txid), witnessUtxo: false }
            : {}),
        })),
      )
      const psbt = buildPsbt(specs, [
        { script: external.script, value: 200_000 },
        { script: (await h.address(84, 1, 0)).scriptPubKey, value: 38_000 },
      ])
      const signInputs = inputs.map((input, index) => ({ address: input.owner.address, index }))
      const signed = await h.call('signPsbt', { account: h.accountId, psbt: psbt.toBase64(), signInputs })
      expect(signed.error).toBeUndefined()
      const finalized = bitcoin.Psbt.fromBase64((signed.result as { psbt: string }).psbt)
      finalized.finalizeAllInputs()
      const tx = finalized.extractTransaction()
      expect(await node.testMempoolAccept(tx.toHex())).toEqual({ allowed: true, txid: tx.getId() })

      // One flipped bit in any input's signature and the node refuses the whole transaction.
      for (let index = 0; index < inputs.length; index++) {
        const tampered = bitcoin.Transaction.fromHex(tx.toHex())
        const input = tampered.ins[index]!
        if (input.witness.length > 0) {
          input.witness[0]![8]! ^= 0x01
        } else {
          const [signature, publicKey] = bitcoin.script.decompile(input.script) as Uint8Array[]
          signature![8]! ^= 0x01
          input.script = bitcoin.script.compile([signature!, publicKey!])
        }
        const verdict = await node.testMempoolAccept(tampered.toHex())
        expect(verdict.allowed, `input ${index} (${inputs[index]!.owner.addressType})`).toBe(false)
        expect(verdict.reason).toMatch(/mandatory-script-verify-flag-failed|non-mandatory-script-verify-flag/)
      }

      // The same PSBT through signPsbt with broadcast: sent once, txid checked, mined.
      const eventsBefore = h.events.length
      const broadcast = await h.call('signPsbt', {
        account: h.accountId,
        psbt: psbt.toBase64(),
        signInputs,
        broadcast: true,
      })
      expect(broadcast.error).toBeUndefined()
      const { txid } = broadcast.result as { txid: string }
      expect(txid).toBe(tx.getId())
      await node.mine(1)
      expect(await confirmations(txid)).toBeGreaterThanOrEqual(1)
      // The account re-reads the chain after a broadcast; let that finish before the next test funds it.
      await vi.waitFor(() => expect(h.events.length).toBeGreaterThan(eventsBefore), { timeout: 30_000 })
    })

    it('sendTransfer with memo and change is accepted and mined', async () => {
      await fund(await h.address(84, 0, 1), 150_000)
      const response = await h.call('sendTransfer', {
        account: h.accountId,
        recipientAddress: external.address,
        amount: '50000',
        memo: '636861726c6579206c6f766573206865',
      })
      expect(JSON.stringify(response.error ?? null)).toBe('null')
      const { txid } = response.result as { txid: string }
      const decoded = await node.rpc<{ vout: { value: number; scriptPubKey: { hex: string } }[] }>(
        'getrawtransaction',
        [txid, true],
      )
      expect(decoded.vout.map((out) => out.scriptPubKey.hex)).toContain(
        '6a10636861726c6579206c6f766573206865',
      )
      expect(decoded.vout).toHaveLength(3)
      await node.mine(1)
      expect(await confirmations(txid)).toBeGreaterThanOrEqual(1)
    })

    it('the bitcoinCore provider: UTXOs by script, activity, fee rates, parents, and a refused broadcast reported with the reason', async () => {
      const owner = await h.address(84, 0, 9)
      const { txid, vout } = await node.fund(owner.scriptPubKey, 12_345)
      expect(await provider.utxos(owner.address)).toEqual([
        expect.objectContaining({ txid, vout, value: 12_345, confirmed: true }),
      ])
      expect((await provider.addressActivity(owner.address)).txCount).toBeGreaterThan(0)
      expect((await provider.addressActivity((await h.address(84, 0, 19)).address)).txCount).toBe(0)
      const rates = await provider.feeRates()
      expect(Object.values(rates).every((rate) => rate >= 1)).toBe(true)
      const raw = await provider.rawTransaction(txid)
      expect(bitcoin.Transaction.fromBuffer(raw).getId()).toBe(txid)
      // Re-broadcasting an already mined transaction: the node's reason comes back as -32603 data.
      await expect(provider.broadcast(raw)).rejects.toMatchObject({
        code: -32603,
        data: { reason: expect.stringMatching(/sendrawtransaction/) },
      })
    })
  },
)
