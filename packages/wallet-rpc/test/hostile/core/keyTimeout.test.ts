import { toAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { bip122, externalSigner, hdKeys } from '../../../src/bip122/index.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { accountKeys, eip155, ethSignWarningCode } from '../../../src/eip155/index.js'
import { ton, tonKeys } from '../../../src/ton/index.js'

/**
 * A key provider that never answers (a hardware wallet waiting for a button nobody presses, a dead remote
 * signer) fails the request after its `timeoutMs` with a -32603 that says so, instead of leaving it pending.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const never = <T>() => new Promise<T>(() => {})

describe('key providers with timeoutMs', () => {
  it('bip122 external signer that hangs: -32603 naming the timeout', async () => {
    const hd = hdKeys({ mnemonic })
    const keys = externalSigner({
      publicKey: (path) => hd.publicKey(path),
      signEcdsa: () => never(),
      signTaproot: () => never(),
      timeoutMs: 100,
    })
    const wallet = createWalletRpc({ namespaces: [bip122({ keys })], approve: () => true })
    const answer = await wallet.handle({
      chainId: 'bip122:000000000019d6689c085ae165831e93',
      request: {
        id: 1,
        method: 'signMessage',
        params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'hi', protocol: 'ecdsa' },
      },
    })
    expect(answer).toMatchObject({
      error: { code: -32603, data: { reason: expect.stringContaining('within 100 ms') } },
    })
  })

  it('TON signer that hangs: -32603 naming the timeout', async () => {
    const own = await tonKeys.fromSecretKey(new Uint8Array(32).fill(5))
    const hanging = { publicKey: own.publicKey, sign: () => never<Uint8Array>(), timeoutMs: 100 }
    const wallet = createWalletRpc({ namespaces: [ton({ keys: hanging })], approve: () => true })
    const answer = await wallet.handle({
      chainId: 'ton:-239',
      origin: 'https://dapp.example',
      request: { id: 2, method: 'ton_signData', params: [{ type: 'text', text: 'hi' }] },
    })
    expect(answer).toMatchObject({
      error: { code: -32603, data: { reason: expect.stringContaining('within 100 ms') } },
    })
  })

  it('eip155 account that hangs: -32603 naming the timeout, for every signing method', async () => {
    const address = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F'
    const hanging = toAccount({
      address,
      sign: () => never(),
      signMessage: () => never(),
      signTransaction: () => never(),
      signTypedData: () => never(),
    })
    const wallet = createWalletRpc({
      namespaces: [
        eip155({ keys: { ...accountKeys(hanging), timeoutMs: 100 }, chains: [1], enableEthSign: true }),
      ],
      approve: () => true,
      policy: { allowDangerous: [ethSignWarningCode] },
    })
    const typedData = {
      types: { EIP712Domain: [{ name: 'chainId', type: 'uint256' }], M: [{ name: 'a', type: 'string' }] },
      primaryType: 'M',
      domain: { chainId: 1 },
      message: { a: 'x' },
    }
    const transaction = {
      from: address,
      to: address,
      value: '0x1',
      gas: '0x5208',
      gasPrice: '0x1',
      nonce: '0x0',
    }
    const requests: Array<[string, unknown]> = [
      ['personal_sign', ['0x68656c6c6f', address]],
      ['eth_sign', [address, '0x68656c6c6f']],
      ['eth_signTypedData_v4', [address, typedData]],
      ['eth_signTransaction', [transaction]],
    ]
    for (const [method, params] of requests) {
      const answer = await wallet.handle({ chainId: 'eip155:1', request: { id: 4, method, params } })
      expect(answer, method).toMatchObject({
        error: { code: -32603, data: { reason: expect.stringContaining('within 100 ms') } },
      })
    }
  })

  it('without timeoutMs a slow signer is waited for', async () => {
    const hd = hdKeys({ mnemonic })
    const keys = externalSigner({
      publicKey: (path) => hd.publicKey(path),
      signEcdsa: async (path, hash) => {
        await new Promise((resolve) => setTimeout(resolve, 150))
        return hd.signEcdsa(path, hash)
      },
      signTaproot: (path, hash, aux) => hd.signTaproot(path, hash, aux),
    })
    const wallet = createWalletRpc({ namespaces: [bip122({ keys })], approve: () => true })
    const answer = await wallet.handle({
      chainId: 'bip122:000000000019d6689c085ae165831e93',
      request: {
        id: 3,
        method: 'signMessage',
        params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'hi', protocol: 'ecdsa' },
      },
    })
    expect(answer).toHaveProperty('result')
  })
})
