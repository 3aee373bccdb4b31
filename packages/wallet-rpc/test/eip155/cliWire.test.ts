import { describe, expect, it } from 'vitest'
import { UsageError, type WalletCliOptions } from '../../src/cli/options.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { wireEip155 } from '../../src/walletFromOptions/eip155.js'

const abandon =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

const options = (overrides: Partial<WalletCliOptions> = {}): WalletCliOptions => ({
  mnemonic: abandon,
  tonMnemonic: undefined,
  tonWallet: 'v5r1',
  account: 0,
  approve: 'all',
  now: undefined,
  esplora: new Map(),
  toncenter: new Map(),
  rpc: new Map(),
  ...overrides,
})

describe('CLI wiring of eip155', () => {
  it('no mnemonic: no eip155 namespace', async () => {
    expect(await wireEip155(options({ mnemonic: undefined }))).toBeUndefined()
  })

  it('serves eip155:1 and eip155:31337 for signing, plus every --rpc chain', async () => {
    const namespace = await wireEip155(
      options({
        rpc: new Map([
          ['eip155:10', 'http://127.0.0.1:1'],
          ['bip122:000000000019d6689c085ae165831e93', 'http://x'],
        ]),
      }),
    )
    expect(namespace?.chains).toEqual(['eip155:1', 'eip155:31337', 'eip155:10'])
  })

  it("--account N is the address index in m/44'/60'/0'/0/N", async () => {
    const first = await wireEip155(options())
    const second = await wireEip155(options({ account: 1 }))
    expect(await first?.accounts?.('eip155:1')).toEqual(['0x9858EfFD232B4033E47d90003D41EC34EcaEda94'])
    expect(await second?.accounts?.('eip155:1')).toEqual(['0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0'])
  })

  it('signs on a signing-only chain and refuses to send there with -32603', async () => {
    const namespace = (await wireEip155(options()))!
    const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
    const address = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
    const signed = await wallet.handle({
      chainId: 'eip155:1',
      request: { id: 1, method: 'personal_sign', params: ['0x68656c6c6f', address] },
    })
    expect(signed).toMatchObject({ result: expect.stringMatching(/^0x[0-9a-f]{130}$/) })
    const sent = await wallet.handle({
      chainId: 'eip155:31337',
      request: {
        id: 2,
        method: 'eth_sendTransaction',
        params: [{ from: address, to: address, value: '0x1' }],
      },
    })
    expect(sent).toMatchObject({
      error: { code: -32603, data: { reason: 'no chain provider configured for eip155:31337' } },
    })
  })

  it('a malformed eip155 --rpc chain id is a usage error', async () => {
    await expect(
      wireEip155(options({ rpc: new Map([['eip155:0x1', 'http://127.0.0.1:1']]) })),
    ).rejects.toThrow(UsageError)
  })

  it('an invalid mnemonic is a usage error that does not echo it', async () => {
    const error = await wireEip155(options({ mnemonic: 'zoo zoo zoo secretword' })).catch(
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(UsageError)
    expect(String(error)).not.toContain('secretword')
  })
})
