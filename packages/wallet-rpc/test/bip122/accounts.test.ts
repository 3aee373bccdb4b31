import { describe, expect, it } from 'vitest'
import {
  BIP122_MAINNET,
  BIP122_REGTEST,
  BIP122_TESTNET,
  bip122Chains,
  decodeAddress,
  outputScriptOf,
} from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { singleKey } from '../../src/bip122/keys/singleKey.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { InvalidParamsError, UnauthorizedError } from '../../src/core/errors.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

describe('chains', () => {
  it('uses the genesis-hash CAIP-2 ids, coin type 1 off mainnet, bcrt on regtest', () => {
    expect(BIP122_MAINNET).toBe('bip122:000000000019d6689c085ae165831e93')
    expect(BIP122_TESTNET).toBe('bip122:000000000933ea01ad0ee984209779ba')
    expect(BIP122_REGTEST).toBe('bip122:0f9188f13cb7b2c71f2a335e3a4fc328')
    expect(bip122Chains[BIP122_MAINNET]).toMatchObject({ coinType: 0, network: { bech32: 'bc' } })
    expect(bip122Chains[BIP122_TESTNET]).toMatchObject({ coinType: 1, network: { bech32: 'tb' } })
    expect(bip122Chains[BIP122_REGTEST]).toMatchObject({ coinType: 1, network: { bech32: 'bcrt' } })
  })

  it('decodes every address type and names the networks it belongs to', () => {
    expect(decodeAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')?.networks).toEqual(['mainnet'])
    expect(decodeAddress('BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU')?.networks).toEqual(['mainnet'])
    expect(
      decodeAddress('bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg')?.networks,
    ).toEqual(['regtest'])
    expect(decodeAddress('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2')?.networks).toEqual(['testnet', 'regtest'])
    // bech32 checksum on a v1 program (must be bech32m), mixed case, bad checksum, garbage.
    expect(decodeAddress('bc1pmzfrwwndsqmk5yh69yjr5lfgfg4ev8c0tsc06e')).toBeUndefined()
    expect(decodeAddress('bc1qCR8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toBeUndefined()
    expect(decodeAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv')).toBeUndefined()
    expect(decodeAddress('')).toBeUndefined()
    expect(decodeAddress('1'.repeat(200))).toBeUndefined()
  })

  it('refuses an address of another network with -32602 naming the field', () => {
    const mainnet = bip122Chains[BIP122_MAINNET]!
    const regtest = bip122Chains[BIP122_REGTEST]!
    expect(() =>
      outputScriptOf('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', mainnet, 'recipientAddress'),
    ).toThrow(InvalidParamsError)
    expect(() => outputScriptOf('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', regtest, 'address')).toThrow(
      expect.objectContaining({
        code: -32602,
        data: {
          path: 'address',
          reason:
            'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu is a mainnet address; this request is for regtest',
        },
      }),
    )
    expect(() => outputScriptOf('mkpZhYtJu2r87Js3pDiWJDmPte2NRZ8bJV', regtest, 'address')).not.toThrow()
  })
})

describe('account model', () => {
  const namespace = bip122({ keys: hdKeys({ mnemonic }) })
  const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })

  it('offers only the account id (first external P2WPKH) for session approval, per chain', async () => {
    expect(await wallet.accounts(BIP122_MAINNET)).toEqual(['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'])
    expect(await wallet.accounts(BIP122_TESTNET)).toEqual(['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl'])
    expect(await wallet.accounts(BIP122_REGTEST)).toEqual(['bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk'])
    expect(wallet.supported()).toEqual([
      {
        name: 'bip122',
        chains: [BIP122_MAINNET, BIP122_TESTNET, BIP122_REGTEST],
        methods: expect.arrayContaining(['getAccountAddresses', 'signMessage']),
        events: ['bip122_addressesChanged'],
      },
    ])
  })

  it('resolves the account param leniently: any address of the account names it', async () => {
    const id = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
    for (const address of [
      id,
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
      '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
      '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
      'bc1qetrkzfslk0d4kqjnu29fdh04tkav9vj3k36vuh', // m/84'/0'/0'/1/4
      '3KHhcgwPgYF9hE77zaKy2G36dpkcNtvQ33', // m/49'/0'/0'/0/7
      'BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU', // the id in BIP-173's all-uppercase form (QR codes)
    ]) {
      const account = await namespace.wallet.resolveAccount(BIP122_MAINNET, address)
      expect(account.id).toBe(id)
    }
  })

  it('refuses another account of the same seed and another wallet with 4100, another network with -32602', async () => {
    await expect(
      namespace.wallet.resolveAccount(BIP122_MAINNET, 'bc1qku0qh0mc00y8tk0n65x2tqw4trlspak0fnjmfz'),
    ).rejects.toBeInstanceOf(UnauthorizedError)
    await expect(
      namespace.wallet.resolveAccount(BIP122_MAINNET, '15qucUWKf95Fo58FdCBhUTSAtsm22HHE2Q'),
    ).rejects.toMatchObject({ code: 4100 })
    await expect(
      namespace.wallet.resolveAccount(BIP122_MAINNET, 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l'),
    ).rejects.toMatchObject({ code: 4100 })
    await expect(
      namespace.wallet.resolveAccount(BIP122_TESTNET, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'),
    ).rejects.toMatchObject({ code: -32602, data: { path: 'account' } })
    await expect(namespace.wallet.chain('bip122:00000008819873e925422c1ff0f99f7c')).rejects.toMatchObject({
      code: 5100,
    })
  })

  it('serves account 1 with --account 1 semantics', async () => {
    const second = bip122({ keys: hdKeys({ mnemonic, account: 1 }), chains: { [BIP122_MAINNET]: {} } })
    expect(await second.accounts!(BIP122_MAINNET)).toEqual(['bc1qku0qh0mc00y8tk0n65x2tqw4trlspak0fnjmfz'])
    await expect(
      second.wallet.resolveAccount(BIP122_MAINNET, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'),
    ).rejects.toMatchObject({ code: 4100 })
  })

  it('a static wallet has one address; its account is that address, whatever its type', async () => {
    const wif = 'L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k'
    const taproot = bip122({
      keys: singleKey({ privateKey: wif, addressType: 'p2tr' }),
      chains: { [BIP122_MAINNET]: {} },
    })
    expect(await taproot.accounts!(BIP122_MAINNET)).toEqual([
      'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3',
    ])
    // The same key's P2WPKH address is not this static wallet's.
    await expect(
      taproot.wallet.resolveAccount(BIP122_MAINNET, 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l'),
    ).rejects.toMatchObject({ code: 4100 })
    expect(() => singleKey({ privateKey: 'not-a-wif', addressType: 'p2wpkh' })).toThrow(/WIF/)
    expect(() => singleKey({ privateKey: new Uint8Array(32), addressType: 'p2wpkh' })).toThrow(/private key/)
  })

  it('refuses unknown chains and an empty chain list at construction', () => {
    expect(() => bip122({ keys: hdKeys({ mnemonic }), chains: { 'bip122:ffff': {} } })).toThrow(
      /unknown chain/,
    )
    expect(() => bip122({ keys: hdKeys({ mnemonic }), chains: {} })).toThrow(/no chains/)
  })
})
