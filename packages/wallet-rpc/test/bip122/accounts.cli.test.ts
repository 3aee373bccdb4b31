import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { serveJsonLines } from '../../src/cli/handle.js'
import { parseWalletOptions, UsageError } from '../../src/cli/options.js'
import { wireBip122 } from '../../src/walletFromOptions/bip122.js'
import { createCliWallet } from '../../src/walletFromOptions/wallet.js'
import { FakeEsplora } from './esplora.fake.js'
import { bip322jsVerifies } from './signMessage.independent.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const MAINNET = 'bip122:000000000019d6689c085ae165831e93'
const REGTEST = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
const options = (argv: string[]) => parseWalletOptions(argv, { WALLET_RPC_MNEMONIC: mnemonic }, false)

describe('CLI wiring of bip122', () => {
  it('serves mainnet, testnet and regtest with the mnemonic; --account picks the account', async () => {
    const namespace = await wireBip122(options(['--account', '1']))
    expect(namespace?.chains).toEqual([MAINNET, 'bip122:000000000933ea01ad0ee984209779ba', REGTEST])
    expect(await namespace!.accounts!(MAINNET)).toEqual(['bc1qku0qh0mc00y8tk0n65x2tqw4trlspak0fnjmfz'])
  })

  it('is absent without a mnemonic, and refuses --esplora for a chain it does not serve', async () => {
    expect(await wireBip122(parseWalletOptions([], {}, false))).toBeUndefined()
    await expect(wireBip122(options(['--esplora', 'eip155:1=http://127.0.0.1:1']))).rejects.toBeInstanceOf(
      UsageError,
    )
    await expect(
      wireBip122(parseWalletOptions([], { WALLET_RPC_MNEMONIC: 'abandon secretword' }, false)),
    ).rejects.toThrow(/invalid BIP-39 mnemonic/)
  })

  it('answers JSON lines: signMessage (approved with --approve all) and getAccountAddresses through --esplora', async () => {
    const fake = new FakeEsplora()
    const url = await fake.start()
    try {
      fake.fund('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', {
        txid: '11'.repeat(32),
        vout: 0,
        value: 1000,
      })
      const wallet = await createCliWallet(
        options(['--approve', 'all', '--esplora', `${REGTEST}=${url}`]),
        () => undefined,
      )
      const input = new PassThrough()
      const output = new PassThrough()
      const chunks: string[] = []
      output.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
      input.end(
        [
          {
            chainId: MAINNET,
            request: {
              jsonrpc: '2.0',
              id: 1,
              method: 'signMessage',
              params: {
                account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
                message: 'cli',
                protocol: 'bip322',
              },
            },
          },
          {
            chainId: REGTEST,
            request: {
              jsonrpc: '2.0',
              id: 2,
              method: 'getAccountAddresses',
              params: { account: 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk' },
            },
          },
        ]
          .map((line) => JSON.stringify(line))
          .join('\n'),
      )
      await serveJsonLines(wallet, input, output)
      const [signed, listed] = chunks
        .join('')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line))
      expect(
        bip322jsVerifies('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'cli', signed.result.signature),
      ).toBe(true)
      expect(listed.result[0]).toEqual({
        address: 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk',
        publicKey: '02e7ab2537b5d49e970309aae06e9e49f36ce1c9febbd44ec8e0d1cca0b4f9c319',
        path: "m/84'/1'/0'/0/0",
        intention: 'payment',
      })
      // Receive 0 is used (it holds the UTXO), so the unused receive suggestions start at 1.
      expect(listed.result.map((entry: { path: string }) => entry.path)).toContain("m/84'/1'/0'/0/2")
      // The session property lists the chain that has a provider (here regtest), as `wallet-rpc properties` prints.
      const properties = await wallet.sessionProperties()
      expect(JSON.parse(properties.bip122_getAccountAddresses!)).toEqual(listed.result)
      await wallet.close()
    } finally {
      await fake.stop()
    }
  })
})
