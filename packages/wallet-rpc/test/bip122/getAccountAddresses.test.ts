import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount } from '../../src/bip122/account.js'
import { BIP122_MAINNET, BIP122_REGTEST, bip122Chains } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { singleKey } from '../../src/bip122/keys/singleKey.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { esplora } from '../../src/bip122/providers/esplora.js'
import type { AddressEntry } from '../../src/bip122/types.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { FakeEsplora } from './esplora.fake.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const keys = hdKeys({ mnemonic })
const regtest = bip122Chains[BIP122_REGTEST]!
const txid = (n: number) => n.toString(16).padStart(64, '0')

/** Addresses of the account, derived once (their derivation is proven against the BIP vectors elsewhere). */
const model = await createAccount({ keys, chain: regtest, provider: undefined, clock: () => 0 })
const at = async (purpose: 44 | 49 | 84 | 86, change: 0 | 1, index: number) =>
  (await model.address(purpose, change, index)).address

const fake = new FakeEsplora()
let url = ''
beforeAll(async () => {
  url = await fake.start()
  // History: UTXOs on receive 5 and change 2 (P2WPKH), one on P2TR receive 3, one on P2SH-P2WPKH receive 1;
  // receive 0..4 of P2WPKH were used and emptied.
  for (let index = 1; index <= 4; index++) fake.spendAll(await at(84, 0, index))
  fake.fund(await at(84, 0, 5), { txid: txid(1), vout: 0, value: 50_000 })
  fake.fund(await at(84, 1, 2), { txid: txid(2), vout: 1, value: 12_345 })
  fake.fund(await at(86, 0, 3), { txid: txid(3), vout: 0, value: 546 })
  fake.fund(await at(49, 0, 1), { txid: txid(4), vout: 2, value: 7_000, confirmed: false })
})
afterAll(() => fake.stop())

type Wallet = ReturnType<typeof createWalletRpc>

/** A regtest wallet over the fake Esplora (with history), or without a chain provider. */
function walletWith(provider: boolean): Wallet {
  const namespace = bip122({ keys, chains: { [BIP122_REGTEST]: provider ? { provider: esplora(url) } : {} } })
  return createWalletRpc({ namespaces: [namespace], approve: () => true })
}

const ask = (wallet: Wallet, params: unknown, chainId = BIP122_REGTEST) =>
  wallet.handle({ chainId, request: { id: 1, jsonrpc: '2.0', method: 'getAccountAddresses', params } })

async function list(wallet: Wallet, params: unknown, chainId = BIP122_REGTEST): Promise<AddressEntry[]> {
  const response = await ask(wallet, params, chainId)
  if (!('result' in response)) throw new Error(JSON.stringify(response))
  return response.result as AddressEntry[]
}

const used = (address: string) => (fake.history.get(address) ?? 0) > 0
const chainOf = (entry: AddressEntry) => entry.path!.split('/')[4]

describe('getAccountAddresses against a chain with history', () => {
  it('lists the first external address first, every funded address, and the unused minimum', async () => {
    const wallet = walletWith(true)
    const id = await at(84, 0, 0)
    const entries = await list(wallet, { account: id })
    const addresses = entries.map((entry) => entry.address)
    expect(addresses[0]).toBe(id)
    expect(entries[0]).toEqual({
      address: id,
      // m/84'/1'/0'/0/0 (coin type 1); the same key appears in public test code beside tb1q6rz28….
      publicKey: '02e7ab2537b5d49e970309aae06e9e49f36ce1c9febbd44ec8e0d1cca0b4f9c319',
      path: "m/84'/1'/0'/0/0",
      intention: 'payment',
    })
    // Every address holding a UTXO, whatever its purpose or chain.
    for (const funded of [await at(84, 0, 5), await at(84, 1, 2), await at(86, 0, 3), await at(49, 0, 1)]) {
      expect(addresses).toContain(funded)
    }
    // A used-and-emptied address is not listed (it is neither first nor funded).
    expect(addresses).not.toContain(await at(84, 0, 3))
    // Dynamic wallet: at least 2 unused receive and 2 unused change addresses, after the highest used index.
    const unused = entries.filter((entry) => !used(entry.address))
    const unusedPayment = unused.filter((entry) => entry.intention === 'payment')
    expect(unusedPayment.filter((entry) => chainOf(entry) === '0').length).toBeGreaterThanOrEqual(2)
    expect(unusedPayment.filter((entry) => chainOf(entry) === '1').length).toBeGreaterThanOrEqual(2)
    expect(addresses).toContain(await at(84, 0, 6))
    expect(addresses).toContain(await at(84, 0, 7))
    expect(addresses).toContain(await at(84, 1, 3))
    expect(addresses).toContain(await at(84, 1, 4))
    // The gap limit: fewer than 20 unused addresses in total.
    expect(unused.length).toBeLessThan(20)
    expect(new Set(addresses).size).toBe(addresses.length)
    // P2TR entries carry the x-only internal key.
    const taproot = entries.find((entry) => entry.address === addresses.find((a) => a.startsWith('bcrt1p')))!
    expect(taproot.publicKey).toMatch(/^[0-9a-f]{64}$/)
    expect(taproot.intention).toBe('ordinal')
    await wallet.close()
  })

  it('serves a warm call from the last discovery (no chain reads)', async () => {
    const wallet = walletWith(true)
    const first = await list(wallet, { account: await at(84, 0, 0) })
    const reads = fake.requests.length
    const second = await list(wallet, { account: await at(84, 0, 0) })
    expect(second).toEqual(first)
    expect(fake.requests.length).toBe(reads)
    // The cached listing goes out uncopied, so it is frozen: a caller cannot edit later answers through it.
    expect(() => second.pop()).toThrow(TypeError)
    expect(() => Object.assign(second[0]!, { address: 'edited' })).toThrow(TypeError)
    expect(await list(wallet, { account: await at(84, 0, 0) })).toEqual(first)
    await wallet.close()
  })

  it('filters by intentions: payment = 44/49/84, ordinal = 86; unknown intentions match nothing', async () => {
    const wallet = walletWith(true)
    const account = await at(84, 0, 0)
    const payment = await list(wallet, { account, intentions: ['payment'] })
    expect(payment.every((entry) => entry.intention === 'payment')).toBe(true)
    expect(payment.map((entry) => entry.address)).toContain(await at(49, 0, 1))
    expect(payment[0]!.address).toBe(account)
    const ordinal = await list(wallet, { account, intentions: ['ordinal'] })
    expect(ordinal.every((entry) => entry.intention === 'ordinal')).toBe(true)
    expect(ordinal[0]!.address).toBe(await at(86, 0, 0))
    expect(ordinal.map((entry) => entry.address)).toContain(await at(86, 0, 3))
    expect(ordinal.filter((entry) => !used(entry.address)).length).toBeGreaterThanOrEqual(4)
    expect(await list(wallet, { account, intentions: ['stacks'] })).toEqual([])
    await wallet.close()
  })

  it('is also sessionProperties.bip122_getAccountAddresses (a JSON string)', async () => {
    const wallet = walletWith(true)
    const properties = await wallet.sessionProperties()
    expect(JSON.parse(properties.bip122_getAccountAddresses!)).toEqual(
      await list(wallet, { account: await at(84, 0, 0) }),
    )
    await wallet.close()
  })
})

describe('the WalletConnect docs example (bitcoin.mdx), reproduced from a chain history', () => {
  it('lists exactly the doc’s payment addresses for that history', async () => {
    const docs = new FakeEsplora()
    const docsUrl = await docs.start()
    try {
      const mainnetModel = await createAccount({
        keys,
        chain: bip122Chains[BIP122_MAINNET]!,
        provider: undefined,
        clock: () => 0,
      })
      const address = async (purpose: 49 | 84, change: 0 | 1, index: number) =>
        (await mainnetModel.address(purpose, change, index)).address
      // History behind the doc's answer: receive 0..2 used (UTXO left on 2), change 0..2 used and emptied,
      // a P2SH-P2WPKH UTXO on m/49'/0'/0'/0/7.
      docs.spendAll(await address(84, 0, 0))
      docs.spendAll(await address(84, 0, 1))
      docs.fund(await address(84, 0, 2), { txid: txid(10), vout: 0, value: 10_000 })
      for (let index = 0; index <= 2; index++) docs.spendAll(await address(84, 1, index))
      docs.fund(await address(49, 0, 7), { txid: txid(11), vout: 1, value: 20_000 })
      const namespace = bip122({ keys, chains: { [BIP122_MAINNET]: { provider: esplora(docsUrl) } } })
      const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
      const entries = await list(
        wallet,
        { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', intentions: ['payment'] },
        BIP122_MAINNET,
      )
      // WalletConnectFoundation/docs wallet-sdk/chain-support/bitcoin.mdx, dynamic wallet example.
      expect(entries.map((entry) => [entry.path, entry.address])).toEqual([
        ["m/84'/0'/0'/0/0", 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
        ["m/84'/0'/0'/0/2", 'bc1qp59yckz4ae5c4efgw2s5wfyvrz0ala7rgvuz8z'],
        ["m/49'/0'/0'/0/7", '3KHhcgwPgYF9hE77zaKy2G36dpkcNtvQ33'],
        ["m/84'/0'/0'/0/3", 'bc1qgl5vlg0zdl7yvprgxj9fevsc6q6x5dmcyk3cn3'],
        ["m/84'/0'/0'/0/4", 'bc1qm97vqzgj934vnaq9s53ynkyf9dgr05rargr04n'],
        ["m/84'/0'/0'/1/3", 'bc1qv6vaedpeke2lxr3q0wek8dd7nzhut9w0eqkz9z'],
        ["m/84'/0'/0'/1/4", 'bc1qetrkzfslk0d4kqjnu29fdh04tkav9vj3k36vuh'],
      ])
      await wallet.close()
    } finally {
      await docs.stop()
    }
  })
})

describe('getAccountAddresses without a chain provider', () => {
  it('returns the first external address and the unused minimum, as paths 0 and 1', async () => {
    const wallet = walletWith(false)
    const entries = await list(wallet, { account: await at(84, 0, 0) })
    expect(entries.map((entry) => entry.path)).toEqual([
      "m/84'/1'/0'/0/0",
      "m/86'/1'/0'/0/0",
      "m/84'/1'/0'/0/1",
      "m/84'/1'/0'/1/0",
      "m/84'/1'/0'/1/1",
      "m/86'/1'/0'/0/1",
      "m/86'/1'/0'/1/0",
      "m/86'/1'/0'/1/1",
    ])
    await wallet.close()
  })

  it('accepts any address of the account as `account`', async () => {
    const wallet = walletWith(false)
    const byTaproot = await list(wallet, { account: await at(86, 1, 4) })
    expect(byTaproot[0]!.address).toBe(await at(84, 0, 0))
    await wallet.close()
  })
})

describe('a static wallet', () => {
  it('returns its one address, without a path', async () => {
    const key = singleKey({
      privateKey: 'L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k',
      addressType: 'p2wpkh',
    })
    const namespace = bip122({ keys: key, chains: { [BIP122_MAINNET]: {} } })
    const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
    const response = await ask(
      wallet,
      { account: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l' },
      BIP122_MAINNET,
    )
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: [
        {
          address: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l',
          publicKey: '02c7f12003196442943d8588e01aee840423cc54fc1521526a3b85c2b0cbd58872',
          intention: 'payment',
        },
      ],
    })
    expect(await wallet.accounts(BIP122_MAINNET)).toEqual(['bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l'])
    await wallet.close()
  })
})
