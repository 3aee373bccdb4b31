import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Bip122Namespace } from '../../src/bip122/namespace.js'
import { parseWalletOptions, redactSecrets } from '../../src/cli/options.js'
import { wireBip122 } from '../../src/walletFromOptions/bip122.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

describe('parseWalletOptions', () => {
  it('defaults: no keys, account 0, v5r1, no approval without a TTY', () => {
    expect(parseWalletOptions([], {}, false)).toEqual({
      mnemonic: undefined,
      tonMnemonic: undefined,
      tonWallet: 'v5r1',
      account: 0,
      approve: 'none',
      now: undefined,
      esplora: new Map(),
      ord: new Map(),
      toncenter: new Map(),
      rpc: new Map(),
      delegate: new Map(),
    })
  })

  it('prompts on a TTY when --approve is not given', () => {
    expect(parseWalletOptions([], {}, true).approve).toBe('prompt')
  })

  it('reads the mnemonic from a file (normalising white space) before the environment', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'wallet-rpc-')), 'words')
    writeFileSync(file, `  ${mnemonic.replaceAll(' ', '\n')}\n`)
    expect(
      parseWalletOptions(['--mnemonic-file', file], { WALLET_RPC_MNEMONIC: 'x y' }, false).mnemonic,
    ).toBe(mnemonic)
    expect(parseWalletOptions([], { WALLET_RPC_MNEMONIC: ` ${mnemonic} ` }, false).mnemonic).toBe(mnemonic)
  })

  it('parses provider maps whose chain ids contain colons', () => {
    const options = parseWalletOptions(
      [
        '--rpc',
        'eip155:31337=http://127.0.0.1:8545',
        '--esplora',
        'bip122:0f9188f13cb7b2c71f2a335e3a4fc328=http://127.0.0.1:3002/api',
        '--ord',
        'bip122:0f9188f13cb7b2c71f2a335e3a4fc328=http://127.0.0.1:3003',
        '--toncenter',
        'ton:-3=https://testnet.toncenter.com/api/v2',
        '--now',
        '1700000000',
        '--account',
        '3',
        '--approve',
        'all',
        '--ton-wallet',
        'v4r2',
      ],
      {},
      false,
    )
    expect(options.rpc.get('eip155:31337')).toBe('http://127.0.0.1:8545')
    expect(options.esplora.get('bip122:0f9188f13cb7b2c71f2a335e3a4fc328')).toBe('http://127.0.0.1:3002/api')
    expect(options.ord?.get('bip122:0f9188f13cb7b2c71f2a335e3a4fc328')).toBe('http://127.0.0.1:3003')
    expect(options.toncenter.get('ton:-3')).toBe('https://testnet.toncenter.com/api/v2')
    expect(options).toMatchObject({ now: 1_700_000_000, account: 3, approve: 'all', tonWallet: 'v4r2' })
  })

  it.each([
    [['--approve', 'maybe'], /--approve/],
    [['--ton-wallet', 'v3'], /--ton-wallet/],
    [['--account', '-1'], /--account/],
    [['--now', '1.5'], /--now/],
    [['--rpc', 'http://127.0.0.1:8545'], /CHAIN=URL/],
    [['--rpc', 'eip155:1=not a url'], /CHAIN=URL/],
    [['--ord', 'http://127.0.0.1:3003'], /--ord takes CHAIN=URL/],
    [['--mnemonic-file', '/nonexistent/words'], /--mnemonic-file: cannot read the file/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseWalletOptions(argv, {}, false)).toThrow(message)
  })
})

describe('wireBip122 with --ord', () => {
  const regtest = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
  const options = (ord: [string, string][]) => ({
    ...parseWalletOptions([], { WALLET_RPC_MNEMONIC: mnemonic }, false),
    ord: new Map(ord),
  })

  it('gives that chain an ord server as its assets provider, the others none', async () => {
    const namespace = (await wireBip122(
      options([[regtest, 'http://user:pw@127.0.0.1:3003/']]),
    )) as Bip122Namespace
    expect((await namespace.wallet.chain(regtest)).assets?.name).toBe('ord server 127.0.0.1:3003')
    expect((await namespace.wallet.chain('bip122:000000000019d6689c085ae165831e93')).assets).toBeUndefined()
  })

  it('refuses a chain the wallet does not serve', async () => {
    await expect(wireBip122(options([['eip155:1', 'http://127.0.0.1:3003']]))).rejects.toThrow(
      /--ord: eip155:1 is not a bip122 chain/,
    )
  })
})

describe('redactSecrets', () => {
  const words = 'legal winner thank year wave sausage worth useful legal winner thank yellow'
  it('removes the phrase and any run of three of its words, in any case or separator', () => {
    expect(redactSecrets(`seed check failed for "${words}"`, [words])).toBe(
      'seed check failed for "[redacted]"',
    )
    expect(redactSecrets('bad words: Wave, Sausage, Worth at 4', [undefined, words])).toBe(
      'bad words: [redacted] at 4',
    )
    expect(redactSecrets('legal\nwinner\nthank', [words])).toBe('[redacted]')
  })

  it('keeps ordinary text readable, single shared words included', () => {
    expect(redactSecrets('the year is legal; thank you', [words])).toBe('the year is legal; thank you')
    expect(redactSecrets('nothing to hide', [undefined, undefined])).toBe('nothing to hide')
  })
})
