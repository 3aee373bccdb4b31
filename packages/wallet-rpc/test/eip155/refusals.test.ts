import { type Hex, parseTransaction, recoverTransactionAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { ethSignWarningCode, privateKeyKeys } from '../../src/eip155/index.js'
import { errorOf, harness } from './helpers.js'

/**
 * Every refusal with its exact code. Offline: chain eip155:1 is signing-only, so transactions carry every
 * field (nonce, gas, fees) and nothing reaches a network.
 */
const key = '0x4646464646464646464646464646464646464646464646464646464646464646'
const owner = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F'
const stranger = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const badChecksum = '0x9d8a62f656a8d1615C1294fd71e9CFb3E4855A4F'
const recipient = '0x3535353535353535353535353535353535353535'

const tx = (fields: Record<string, unknown> = {}) => [
  {
    from: owner,
    to: recipient,
    value: '0xde0b6b3a7640000',
    gas: '0x5208',
    maxFeePerGas: '0x4a817c800',
    maxPriorityFeePerGas: '0x3b9aca00',
    nonce: '0x0',
    ...fields,
  },
]

const mail = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ],
    Mail: [
      { name: 'contents', type: 'string' },
      { name: 'count', type: 'uint8' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Test', chainId: 1 },
  message: { contents: 'hi', count: 1 },
}
const typed = (patch: (data: typeof mail) => unknown) => patch(structuredClone(mail))

type Case = [name: string, method: string, params: unknown, code: number, data?: Record<string, unknown>]

const cases: Case[] = [
  // personal_sign
  ['personal_sign: params not an array', 'personal_sign', { message: 'hi' }, -32602],
  ['personal_sign: missing address', 'personal_sign', ['hi'], -32602],
  ['personal_sign: extra param', 'personal_sign', ['hi', owner, 'password'], -32602],
  ['personal_sign: message not a string', 'personal_sign', [42, owner], -32602, { path: '0' }],
  ['personal_sign: address malformed', 'personal_sign', ['hi', '0x1234'], -32602, { path: '1' }],
  ['personal_sign: bad EIP-55 checksum', 'personal_sign', ['hi', badChecksum], -32602, { path: '1' }],
  // [address, message] is accepted only when the message cannot be read as an address (see personal_sign.ts).
  ['personal_sign: swapped, message like an address', 'personal_sign', [owner, stranger.toLowerCase()], 4100],
  ['personal_sign: address not owned', 'personal_sign', ['hi', stranger], 4100, { account: stranger }],
  // eth_sign, disabled by default
  ['eth_sign: disabled by default', 'eth_sign', [owner, '0xdeadbeef'], 5101],
  // eth_signTypedData family
  ['typed data: not JSON', 'eth_signTypedData_v4', [owner, '{not json'], -32602, { path: '1' }],
  ['typed data: not an object', 'eth_signTypedData_v4', [owner, 7], -32602],
  [
    'typed data: legacy V1 array form',
    'eth_signTypedData',
    [[{ type: 'string', name: 'm', value: 'x' }], owner],
    -32602,
  ],
  [
    'typed data: EIP712Domain missing',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, types: { Mail: d.types.Mail } }))],
    -32602,
    { path: '1.types.EIP712Domain' },
  ],
  [
    'typed data: primaryType undefined',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, primaryType: 'Letter' }))],
    -32602,
    { path: '1.primaryType' },
  ],
  [
    'typed data: domain.chainId of another chain',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, domain: { ...d.domain, chainId: 5 } }))],
    -32602,
    { rule: 'chain_mismatch' },
  ],
  [
    'typed data: domain.chainId hex of another chain',
    'eth_signTypedData_v3',
    [owner, typed((d) => ({ ...d, domain: { ...d.domain, chainId: '0x89' } }))],
    -32602,
    { rule: 'chain_mismatch' },
  ],
  [
    'typed data: domain.chainId NaN',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, domain: { ...d.domain, chainId: 'NaN' } }))],
    -32602,
    { path: '1.domain.chainId' },
  ],
  [
    'typed data: uint8 out of range',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, message: { ...d.message, count: 256 } }))],
    -32602,
    { path: '1' },
  ],
  [
    'typed data: field missing',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, message: { contents: 'hi' } }))],
    -32602,
  ],
  [
    'typed data: number past 2^53 (already rounded by JSON)',
    'eth_signTypedData_v4',
    [
      owner,
      '{"types":{"EIP712Domain":[],"M":[{"name":"a","type":"uint256"}]},"primaryType":"M","domain":{},"message":{"a":9007199254740993}}',
    ],
    -32602,
    { path: '1.message.a' },
  ],
  [
    'typed data: fractional number',
    'eth_signTypedData_v4',
    [owner, typed((d) => ({ ...d, message: { ...d.message, count: 1.5 } }))],
    -32602,
    { path: '1.message.count' },
  ],
  ['typed data: address not owned', 'eth_signTypedData_v4', [stranger, mail], 4100],
  // transactions
  [
    'tx: value = 2^256',
    'eth_signTransaction',
    tx({ value: `0x1${'0'.repeat(64)}` }),
    -32602,
    { path: '0.value' },
  ],
  ['tx: gas = 2^64', 'eth_signTransaction', tx({ gas: '0x10000000000000000' }), -32602, { path: '0.gas' }],
  ['tx: value as decimal string', 'eth_signTransaction', tx({ value: '1000' }), -32602, { path: '0.value' }],
  ['tx: value as a number', 'eth_signTransaction', tx({ value: 1000 }), -32602, { path: '0.value' }],
  [
    'tx: value with a leading zero',
    'eth_signTransaction',
    tx({ value: '0x01' }),
    -32602,
    { path: '0.value' },
  ],
  ['tx: value with 0X prefix', 'eth_signTransaction', tx({ value: '0X1' }), -32602, { path: '0.value' }],
  ['tx: negative value', 'eth_signTransaction', tx({ value: '-0x1' }), -32602, { path: '0.value' }],
  ['tx: odd-length data', 'eth_signTransaction', tx({ data: '0x123' }), -32602, { path: '0.data' }],
  ['tx: non-hex data', 'eth_signTransaction', tx({ data: '0xzz' }), -32602, { path: '0.data' }],
  ['tx: data without 0x', 'eth_signTransaction', tx({ data: 'abcd' }), -32602, { path: '0.data' }],
  [
    'tx: data and input differ',
    'eth_signTransaction',
    tx({ data: '0x01', input: '0x02' }),
    -32602,
    { path: '0.input' },
  ],
  [
    'tx: chainId of another chain',
    'eth_signTransaction',
    tx({ chainId: '0x5' }),
    -32602,
    { rule: 'chain_mismatch' },
  ],
  [
    'tx: gasPrice with 1559 fees',
    'eth_signTransaction',
    tx({ gasPrice: '0x1' }),
    -32602,
    { path: '0.gasPrice' },
  ],
  [
    'tx: tip above fee cap',
    'eth_signTransaction',
    tx({ maxPriorityFeePerGas: '0x4a817c801' }),
    -32602,
    { path: '0.maxPriorityFeePerGas' },
  ],
  ['tx: type 0x3 (blob)', 'eth_signTransaction', tx({ type: '0x3' }), -32602, { path: '0.type' }],
  ['tx: type 0x4 (EIP-7702)', 'eth_signTransaction', tx({ type: '0x4' }), -32602, { path: '0.type' }],
  ['tx: type 0x0 with 1559 fees', 'eth_signTransaction', tx({ type: '0x0' }), -32602, { path: '0.type' }],
  [
    'tx: type 0x2 with gasPrice',
    'eth_signTransaction',
    tx({ type: '0x2', gasPrice: '0x1', maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
    -32602,
    { path: '0.gasPrice' },
  ],
  [
    'tx: type 0x0 with an access list',
    'eth_signTransaction',
    tx({
      type: '0x0',
      gasPrice: '0x1',
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
      accessList: [],
    }),
    -32602,
    { path: '0.accessList' },
  ],
  ['tx: unknown field', 'eth_signTransaction', tx({ gasLimit: '0x5208' }), -32602],
  ['tx: no to and no data', 'eth_signTransaction', tx({ to: undefined }), -32602, { path: '0.to' }],
  ['tx: to with bad checksum', 'eth_signTransaction', tx({ to: badChecksum }), -32602, { path: '0.to' }],
  [
    'tx: nonce above 2^53-1',
    'eth_signTransaction',
    tx({ nonce: '0x20000000000000' }),
    -32602,
    { path: '0.nonce' },
  ],
  ['tx: from not owned', 'eth_signTransaction', tx({ from: stranger }), 4100],
  ['tx: two transactions', 'eth_signTransaction', [...tx(), ...tx()], -32602],
  [
    'tx: nonce missing on a signing-only chain',
    'eth_signTransaction',
    tx({ nonce: undefined }),
    -32603,
    { reason: 'no chain provider configured for eip155:1' },
  ],
  [
    'tx: send on a signing-only chain',
    'eth_sendTransaction',
    tx(),
    -32603,
    { reason: 'no chain provider configured for eip155:1' },
  ],
  // raw transactions
  ['raw: not a transaction', 'eth_sendRawTransaction', ['0x1234'], -32602, { path: '0' }],
  ['raw: odd-length hex', 'eth_sendRawTransaction', ['0x123'], -32602, { path: '0' }],
  [
    'raw: unsigned transaction',
    'eth_sendRawTransaction',
    [
      '0x02f00180843b9aca008504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080c0',
    ],
    -32602,
    { path: '0' },
  ],
  // routing
  ['unknown method', 'eth_foo', [], -32601],
]

describe('refusals: every bad input answers its exact code', () => {
  for (const [name, method, params, code, data] of cases) {
    it(name, async () => {
      const { call, reviews } = harness({ keys: privateKeyKeys(key), chains: [1] })
      const error = errorOf(await call(method, params))
      expect(error.code).toBe(code)
      if (data) expect(error.data).toMatchObject(data)
      expect(reviews).toEqual([])
    })
  }

  it('personal_sign [address, message] as some dapps send it: the same signature and review as [message, address]', async () => {
    const { result, reviews } = harness({ keys: privateKeyKeys(key), chains: [1] })
    for (const message of ['hi', '0x68656c6c6f']) {
      const straight = await result('personal_sign', [message, owner])
      expect(await result('personal_sign', [owner, message])).toBe(straight)
    }
    expect(reviews[1]!.items).toEqual(reviews[0]!.items)
  })

  it('a chain the wallet does not serve answers 5100', async () => {
    const { call } = harness({ keys: privateKeyKeys(key), chains: [1] })
    expect(errorOf(await call('personal_sign', ['hi', owner], 'eip155:5')).code).toBe(5100)
  })

  it("approve saying no answers EIP-1193's 4001 (WalletConnect's 5000 on the other namespaces)", async () => {
    const { call } = harness({ keys: privateKeyKeys(key), chains: [1] }, { approve: () => false })
    expect(errorOf(await call('personal_sign', ['hi', owner]))).toEqual({
      code: 4001,
      message: 'User denied the request.',
    })
  })

  it('eth_sign disabled: 5101 with the reason, and not offered to sessions', async () => {
    const { call, wallet } = harness({ keys: privateKeyKeys(key), chains: [1] })
    expect(errorOf(await call('eth_sign', [owner, '0xdeadbeef']))).toEqual({
      code: 5101,
      message: 'Unsupported method.',
      data: {
        method: 'eth_sign',
        reason:
          'eth_sign is disabled by this wallet (blind signing); use personal_sign or eth_signTypedData_v4',
      },
    })
    expect(wallet.supported()[0]?.methods).not.toContain('eth_sign')
  })
})

describe('eth_sign opted in', () => {
  const options = { keys: privateKeyKeys(key), chains: [1], enableEthSign: true }

  it('without the policy allowing its danger warning: -32602 with the rule, user never asked', async () => {
    const { call, reviews } = harness(options)
    const error = errorOf(await call('eth_sign', [owner, '0xdeadbeef']))
    expect(error.code).toBe(-32602)
    expect(error.data).toMatchObject({ rule: ethSignWarningCode })
    expect(reviews).toEqual([])
  })

  it('with the policy allowing it: the EIP-191 prefixed signature, same as personal_sign', async () => {
    const { result, reviews, wallet } = harness(options, { allowDangerous: [ethSignWarningCode] })
    const signature = await result('eth_sign', [owner, '0xdeadbeef'])
    expect(signature).toBe(await result('personal_sign', ['0xdeadbeef', owner]))
    expect(reviews[0]?.warnings).toContainEqual(
      expect.objectContaining({ code: 'eth_sign.blind', severity: 'danger' }),
    )
    expect(wallet.supported()[0]?.methods).toContain('eth_sign')
  })

  it('data must be hex', async () => {
    const { call } = harness(options, { allowDangerous: [ethSignWarningCode] })
    expect(errorOf(await call('eth_sign', [owner, 'hello'])).code).toBe(-32602)
  })
})

describe('accepted spellings', () => {
  it('domain.chainId as number, decimal string and hex string sign the same digest', async () => {
    const { result } = harness({ keys: privateKeyKeys(key), chains: [1] })
    const signatures = await Promise.all(
      [1, '1', '0x1'].map((chainId) =>
        result('eth_signTypedData_v4', [owner, typed((d) => ({ ...d, domain: { ...d.domain, chainId } }))]),
      ),
    )
    expect(new Set(signatures).size).toBe(1)
  })

  it('an access list with gasPrice signs an EIP-2930 transaction, with 1559 fees an EIP-1559 one', async () => {
    const { result } = harness({ keys: privateKeyKeys(key), chains: [1] })
    const accessList = [{ address: recipient, storageKeys: [`0x${'01'.padStart(64, '0')}`] }]
    const legacyFees = { maxFeePerGas: undefined, maxPriorityFeePerGas: undefined, gasPrice: '0x1' }
    for (const [fields, type] of [
      [{ ...legacyFees, accessList }, 'eip2930'],
      [{ ...legacyFees, type: '0x1' }, 'eip2930'],
      [{ accessList }, 'eip1559'],
    ] as const) {
      const raw = await result<Hex>('eth_signTransaction', tx(fields))
      const parsed = parseTransaction(raw)
      expect(parsed.type).toBe(type)
      // viem decodes an empty access list as absent.
      expect(parsed.accessList ?? []).toEqual('accessList' in fields ? accessList : [])
      expect(parsed.chainId).toBe(1)
      expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(owner)
    }
  })

  it('a lower-case from and to are accepted', async () => {
    const { result } = harness({ keys: privateKeyKeys(key), chains: [1] })
    const raw = await result(
      'eth_signTransaction',
      tx({ from: owner.toLowerCase(), to: recipient.toLowerCase() }),
    )
    expect(raw).toMatch(/^0x02/)
  })
})
