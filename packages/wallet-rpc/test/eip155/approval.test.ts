import type { Hex } from 'viem'
import { privateKeyToAccount, toAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { accountKeys, ethSignWarningCode, mnemonicKeys } from '../../src/eip155/index.js'
import { errorOf, harness } from './helpers.js'

/**
 * The signer is a custom (external) viem account whose every sign call is recorded. The proof: at the
 * moment `approve` runs nothing has been signed, and when `approve` says no nothing is ever signed.
 */
function spySigner() {
  const inner = privateKeyToAccount('0x4646464646464646464646464646464646464646464646464646464646464646')
  const calls: string[] = []
  const account = toAccount({
    address: inner.address,
    async sign(parameters) {
      calls.push('sign')
      return inner.sign!(parameters)
    },
    async signMessage(parameters) {
      calls.push('signMessage')
      return inner.signMessage(parameters)
    },
    async signTransaction(transaction, options) {
      calls.push('signTransaction')
      return inner.signTransaction(transaction, options)
    },
    async signTypedData(parameters) {
      calls.push('signTypedData')
      return inner.signTypedData(parameters as never)
    },
  })
  return { account, calls }
}

const owner = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F'
const requests: Array<[string, unknown, string]> = [
  ['personal_sign', ['0x68656c6c6f', owner], 'signMessage'],
  ['eth_sign', [owner, '0x68656c6c6f'], 'signMessage'],
  [
    'eth_signTypedData_v4',
    [
      owner,
      {
        types: { EIP712Domain: [{ name: 'chainId', type: 'uint256' }], M: [{ name: 'a', type: 'string' }] },
        primaryType: 'M',
        domain: { chainId: 1 },
        message: { a: 'x' },
      },
    ],
    'signTypedData',
  ],
  [
    'eth_signTransaction',
    [
      {
        from: owner,
        to: owner,
        value: '0x1',
        gas: '0x5208',
        gasPrice: '0x1',
        nonce: '0x0',
      },
    ],
    'signTransaction',
  ],
]

describe('no signature before approval', () => {
  for (const [method, params, signCall] of requests) {
    it(`${method}: nothing signed while approve runs; signed after yes`, async () => {
      const spy = spySigner()
      const seenAtApproval: number[] = []
      const { result } = harness(
        { keys: accountKeys(spy.account), chains: [1], enableEthSign: true },
        {
          allowDangerous: [ethSignWarningCode],
          approve: () => {
            seenAtApproval.push(spy.calls.length)
            return true
          },
        },
      )
      const signature = await result<Hex>(method, params)
      expect(signature).toMatch(/^0x[0-9a-f]+$/)
      expect(seenAtApproval).toEqual([0])
      expect(spy.calls).toEqual([signCall])
    })

    it(`${method}: approve says no, nothing is ever signed`, async () => {
      const spy = spySigner()
      const { call, reviews } = harness(
        { keys: accountKeys(spy.account), chains: [1], enableEthSign: true },
        { allowDangerous: [ethSignWarningCode], approve: () => false },
      )
      expect(errorOf(await call(method, params)).code).toBe(4001)
      expect(reviews).toHaveLength(1)
      expect(spy.calls).toEqual([])
    })
  }

  it('a refused danger warning never reaches approve nor the signer', async () => {
    const spy = spySigner()
    const { call, reviews } = harness({ keys: accountKeys(spy.account), chains: [1], enableEthSign: true })
    expect(errorOf(await call('eth_sign', [owner, '0x68656c6c6f'])).code).toBe(-32602)
    expect(reviews).toEqual([])
    expect(spy.calls).toEqual([])
  })

  it('no secret in any review', async () => {
    const spy = spySigner()
    const { result, reviews } = harness(
      { keys: accountKeys(spy.account), chains: [1], enableEthSign: true },
      {
        allowDangerous: [ethSignWarningCode],
      },
    )
    for (const [method, params] of requests) await result(method, params)
    const text = JSON.stringify(reviews)
    expect(text).not.toContain('4646464646464646464646464646464646464646464646464646464646464646')
  })
})

describe('secrets stay in the key provider', () => {
  // bip44-addresses.json: m/44'/60'/0'/0/0 of this mnemonic and its private key.
  const mnemonic =
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
  const privateKey = '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727'
  const address = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'

  it('no mnemonic or private key in any review, response or reported error, signed or refused', async () => {
    const { call, reviews, errors } = harness(
      { keys: mnemonicKeys({ mnemonic }), chains: [1], enableEthSign: true },
      { allowDangerous: [ethSignWarningCode] },
    )
    const ours = (params: unknown) => JSON.parse(JSON.stringify(params).replaceAll(owner, address))
    const signed = []
    for (const [method, params] of requests) signed.push(await call(method, ours(params)))
    expect(signed.every((response) => 'result' in response)).toBe(true)
    const refused = [
      await call('personal_sign', ['0x68656c6c6f', owner]), // 4100: not this wallet's address
      await call('eth_sendTransaction', [{ from: address, to: address, value: '0x1' }]), // -32603: no provider
      await call('eth_signTypedData_v4', [address, '{"types":']), // -32602
    ]
    expect(refused.map((response) => errorOf(response).code)).toEqual([4100, -32603, -32602])
    const seen = [
      JSON.stringify(reviews),
      JSON.stringify([...signed, ...refused]),
      ...errors.map((error) => `${String(error)}\n${(error as Error).stack}\n${JSON.stringify(error)}`),
    ].join('\n')
    expect(seen).not.toContain(mnemonic)
    expect(seen).not.toContain('abandon abandon')
    expect(seen.toLowerCase()).not.toContain(privateKey)
  })
})

describe('WalletKit session_request shape', () => {
  it('personal_sign from a session_request event: review carries the verified origin, answer echoes the id', async () => {
    const spy = spySigner()
    const { wallet, reviews } = harness({ keys: accountKeys(spy.account), chains: [1] })
    const response = await wallet.handle({
      id: 1700000000001,
      topic: 'a'.repeat(64),
      params: { chainId: 'eip155:1', request: { method: 'personal_sign', params: ['0x68656c6c6f', owner] } },
      verifyContext: { verified: { origin: 'https://app.example.com', validation: 'VALID' } },
    })
    expect(response).toMatchObject({ id: 1700000000001, result: expect.stringMatching(/^0x[0-9a-f]{130}$/) })
    expect(reviews[0]).toMatchObject({
      origin: 'https://app.example.com',
      originValidation: 'VALID',
      chainId: 'eip155:1',
      method: 'personal_sign',
      account: owner,
    })
  })
})
