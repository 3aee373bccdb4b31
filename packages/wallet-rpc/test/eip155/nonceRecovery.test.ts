import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { createPublicClient, type Hex, http, keccak256, type PublicClient, parseEther, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import { errorOf, type Harness, harness, minedReceipt } from './helpers.js'

const devMnemonic = 'test test test test test test test test test test test junk'

/**
 * No hash that cannot mine (issue 21): a transaction the wallet only signed must not stall its later sends,
 * and a send by another client from the same key between two of ours must not break them. Proven on anvil
 * (automine): every hash the wallet answers is mined.
 */
const account5 = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'
const account6 = '0x976EA74026E726554dB657fA54763abd0C3a0aa9'
const devKey6 = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e'
const recipient = '0x000000000000000000000000000000000000bEEF'

let anvil: AnvilInstance
let chain: PublicClient
let h: Harness

beforeAll(async () => {
  anvil = await startAnvil()
  chain = createPublicClient({ transport: http(anvil.url) })
  h = harness({
    keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [5, 6] }),
    chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
  })
})
afterAll(async () => {
  await anvil?.stop()
})

describe('nonces on anvil', () => {
  it('sign-only, then send: the send mines and pays (the unsent signature holds no nonce)', async () => {
    const signed = await h.result<Hex>('eth_signTransaction', [
      { from: account5, to: recipient, value: '0x1' },
    ])
    const before = await chain.getBalance({ address: recipient })
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account5, to: recipient, value: toHex(parseEther('1')) },
    ])
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect((await chain.getBalance({ address: recipient })) - before).toBe(parseEther('1'))
    // The dapp broadcasting the stale signature later is refused cleanly by the node: its nonce was used.
    const late = await h.call('eth_sendRawTransaction', [signed])
    expect(errorOf(late).code).toBe(-32603)
    await expect(chain.getTransaction({ hash: keccak256(signed) })).rejects.toThrow()
  })

  it('sign-only, then 50 concurrent sends: all 50 mine with distinct nonces', async () => {
    await h.result<Hex>('eth_signTransaction', [{ from: account5, to: recipient, value: '0x2' }])
    const start = await chain.getTransactionCount({ address: account5 })
    const hashes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        h.result<Hex>('eth_sendTransaction', [{ from: account5, to: recipient, value: toHex(index + 1) }]),
      ),
    )
    const receipts = await Promise.all(hashes.map((hash) => minedReceipt(chain, hash)))
    expect(receipts.every((receipt) => receipt.status === 'success')).toBe(true)
    const nonces = await Promise.all(hashes.map(async (hash) => (await chain.getTransaction({ hash })).nonce))
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => start + i))
  })

  it('another client sending from the same key between two of ours: ours still mine', async () => {
    const first = await h.result<Hex>('eth_sendTransaction', [
      { from: account6, to: recipient, value: '0x3' },
    ])
    await minedReceipt(chain, first)
    const elsewhere = privateKeyToAccount(devKey6)
    expect(elsewhere.address).toBe(account6)
    const nonce = await chain.getTransactionCount({ address: account6 })
    const outsideRaw = await elsewhere.signTransaction({
      chainId: anvil.chainId,
      nonce,
      to: recipient,
      value: 4n,
      gas: 21_000n,
      maxFeePerGas: parseEther('0.0000001'),
      maxPriorityFeePerGas: 1n,
    })
    const outside = await chain.sendRawTransaction({ serializedTransaction: outsideRaw })
    await minedReceipt(chain, outside)
    const second = await h.result<Hex>('eth_sendTransaction', [
      { from: account6, to: recipient, value: '0x5' },
    ])
    const receipt = await minedReceipt(chain, second)
    expect(receipt.status).toBe('success')
    expect((await chain.getTransaction({ hash: second })).nonce).toBe(nonce + 1)
  })
})

describe('the nonce in the review', () => {
  it("a send's review shows the account's next nonce; a dapp nonce that is not the next gets a caution", async () => {
    const asked = h.reviews.length
    const hash = await h.result<Hex>('eth_sendTransaction', [{ from: account5, to: recipient, value: '0x9' }])
    // anvil answers the send before it mines: the count is read once the receipt exists.
    await minedReceipt(chain, hash)
    const next = await chain.getTransactionCount({ address: account5 })
    const shown = h.reviews[asked]!.items.find((entry) => entry.label === 'Nonce')
    expect(shown).toEqual({ label: 'Nonce', value: `${next - 1} (the account's next; fixed when signed)` })
    const ahead = await h.call('eth_signTransaction', [
      { from: account5, to: recipient, value: '0x1', nonce: toHex(next + 3) },
    ])
    expect(ahead).toHaveProperty('result')
    expect(h.reviews.at(-1)!.warnings.map((warning) => warning.code)).toContain('tx.nonce_not_next')
  })
})
