import { encodeFunctionData, erc20Abi, hashTypedData, maxUint160, maxUint256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { privateKeyKeys } from '../../src/eip155/index.js'
import { harness } from './helpers.js'
import { permit2Address, permit2SingleTypedData, permit2TransferTypedData } from './permit2.js'
import { permitTypes, transferWithAuthorization, usdcDomainTypes } from './transferWithAuthorization.js'

const key = '0x4646464646464646464646464646464646464646464646464646464646464646'
const owner = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F'
const token = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const spender = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const permit2 = permit2Address
const router = '0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD'

async function reviewOf(method: string, params: unknown) {
  const { result, reviews } = harness({ keys: privateKeyKeys(key), chains: [1] })
  await result(method, params)
  return reviews[0]!
}

const txTo = (to: string, data: string) => [
  { from: owner, to, data, gas: '0x30000', gasPrice: '0x3b9aca00', nonce: '0x1', value: '0x0' },
]

describe('transaction reviews', () => {
  it('plain transfer: to, value in ether, max fee, gas', async () => {
    const review = await reviewOf('eth_signTransaction', [
      {
        from: owner,
        to: spender,
        value: '0xde0b6b3a7640000',
        gas: '0x5208',
        gasPrice: '0x4a817c800',
        nonce: '0x9',
      },
    ])
    expect(review.title).toBe('Sign transaction')
    expect(review.account).toBe(owner)
    expect(review.items).toEqual([
      { label: 'From', value: owner },
      { label: 'To', value: spender },
      { label: 'Value', value: '1 ETH' },
      { label: 'Max network fee', value: '0.00042 ETH' },
      { label: 'Gas limit', value: '21000' },
      { label: 'Gas price', value: '20 gwei' },
      { label: 'Nonce', value: '9' },
    ])
    expect(review.warnings).toEqual([])
  })

  it('ERC-20 transfer is decoded', async () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [router, 2500000n] })
    const review = await reviewOf('eth_signTransaction', txTo(token, data))
    expect(review.items).toEqual(
      expect.arrayContaining([
        { label: 'Token call', value: 'ERC-20 transfer' },
        { label: 'Token contract', value: token },
        { label: 'Recipient', value: router },
        { label: 'Amount (token base units)', value: '2500000' },
      ]),
    )
    expect(review.warnings).toEqual([])
  })

  it('ERC-20 transferFrom is decoded with its owner', async () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transferFrom',
      args: [spender, router, 7n],
    })
    const review = await reviewOf('eth_signTransaction', txTo(token, data))
    expect(review.items.slice(-5)).toEqual([
      { label: 'Token call', value: 'ERC-20 transferFrom' },
      { label: 'Token contract', value: token },
      { label: 'Owner', value: spender },
      { label: 'Recipient', value: router },
      { label: 'Amount (token base units)', value: '7' },
    ])
    expect(review.warnings).toEqual([])
  })

  it('bounded ERC-20 approve is decoded without a warning', async () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, 1000n] })
    const review = await reviewOf('eth_signTransaction', txTo(token, data))
    expect(review.items).toContainEqual({ label: 'Spender', value: router })
    expect(review.items).toContainEqual({ label: 'Allowance (token base units)', value: '1000' })
    expect(review.warnings).toEqual([])
  })

  it('unlimited ERC-20 approve carries a caution naming the spender', async () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, maxUint256] })
    const review = await reviewOf('eth_signTransaction', txTo(token, data))
    expect(review.warnings).toEqual([
      {
        code: 'erc20.unlimited_approval',
        severity: 'caution',
        message: `Grants ${router} an unlimited allowance to spend your tokens of ${token}.`,
      },
    ])
  })

  it('setApprovalForAll(true) carries a caution', async () => {
    const data = `0xa22cb465${router.slice(2).toLowerCase().padStart(64, '0')}${'1'.padStart(64, '0')}`
    const review = await reviewOf('eth_signTransaction', txTo(token, data))
    expect(review.warnings.map((warning) => warning.code)).toEqual(['nft.approval_for_all'])
  })

  it('the other allowance calls: increaseAllowance, a submitted ERC-2612 permit, Permit2 approve (unlimited at uint160 max)', async () => {
    const allowanceAbi = [
      {
        type: 'function',
        name: 'increaseAllowance',
        inputs: [{ type: 'address' }, { type: 'uint256' }],
        outputs: [{ type: 'bool' }],
        stateMutability: 'nonpayable',
      },
      {
        type: 'function',
        name: 'permit',
        inputs: [
          { type: 'address' },
          { type: 'address' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'uint8' },
          { type: 'bytes32' },
          { type: 'bytes32' },
        ],
        outputs: [],
        stateMutability: 'nonpayable',
      },
      {
        type: 'function',
        name: 'approve',
        inputs: [{ type: 'address' }, { type: 'address' }, { type: 'uint160' }, { type: 'uint48' }],
        outputs: [],
        stateMutability: 'nonpayable',
      },
    ] as const
    const increase = await reviewOf(
      'eth_signTransaction',
      txTo(
        token,
        encodeFunctionData({
          abi: allowanceAbi,
          functionName: 'increaseAllowance',
          args: [router, maxUint256],
        }),
      ),
    )
    expect(increase.items).toContainEqual({ label: 'Token call', value: 'ERC-20 increaseAllowance' })
    expect(increase.warnings.map((warning) => warning.code)).toEqual(['erc20.unlimited_approval'])
    const word = `0x${'11'.repeat(32)}` as const
    const permit = await reviewOf(
      'eth_signTransaction',
      txTo(
        token,
        encodeFunctionData({
          abi: allowanceAbi,
          functionName: 'permit',
          args: [owner, router, maxUint256, 1893456000n, 27, word, word],
        }),
      ),
    )
    expect(permit.items).toEqual(
      expect.arrayContaining([
        { label: 'Token call', value: 'ERC-2612 permit (a signed allowance, submitted)' },
        { label: 'Owner', value: owner },
        { label: 'Spender', value: router },
      ]),
    )
    expect(permit.warnings[0]).toMatchObject({ code: 'erc20.unlimited_approval' })
    const viaPermit2 = (amount: bigint, expiration: number) =>
      reviewOf(
        'eth_signTransaction',
        txTo(
          permit2,
          encodeFunctionData({
            abi: allowanceAbi,
            functionName: 'approve',
            args: [token, router, amount, expiration],
          }),
        ),
      )
    const unlimited = await viaPermit2(maxUint160, 2 ** 48 - 1)
    expect(unlimited.items).toEqual(
      expect.arrayContaining([
        { label: 'Token call', value: 'Permit2 approve' },
        { label: 'Token contract', value: token },
        { label: 'Expires', value: `never (${2 ** 48 - 1})` },
      ]),
    )
    expect(unlimited.warnings).toEqual([
      {
        code: 'erc20.unlimited_approval',
        severity: 'caution',
        message: `Grants ${router} an unlimited allowance (Permit2's uint160 maximum) to spend your tokens of ${token} through ${permit2}.`,
      },
    ])
    const bounded = await viaPermit2(5n, 1893456000)
    expect(bounded.items).toContainEqual({ label: 'Expires', value: '2030-01-01T00:00:00.000Z' })
    expect(bounded.warnings).toEqual([])
  })

  it('unknown calldata is shown, not decoded', async () => {
    const review = await reviewOf('eth_signTransaction', txTo(token, '0xdeadbeef'))
    expect(review.items).toContainEqual({ label: 'Data', value: '0xdeadbeef' })
  })

  it('contract creation is flagged', async () => {
    const review = await reviewOf('eth_signTransaction', [
      { from: owner, data: '0x6000600055', gas: '0x30000', gasPrice: '0x1', nonce: '0x0' },
    ])
    expect(review.items).toContainEqual({ label: 'To', value: 'New contract (contract creation)' })
    expect(review.warnings.map((warning) => warning.code)).toEqual(['tx.contract_creation'])
  })
})

const erc2612Permit = (value: bigint) => ({
  types: { EIP712Domain: usdcDomainTypes, Permit: permitTypes },
  primaryType: 'Permit',
  domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: token },
  message: { owner, spender: router, value: value.toString(), nonce: 0, deadline: 1893456000 },
})

const permit2Single = permit2SingleTypedData(1, {
  details: { token, amount: maxUint160.toString(), expiration: 1893456000, nonce: 0 },
  spender: router,
  sigDeadline: '1893456000',
})

const permit2Transfer = permit2TransferTypedData(1, {
  token,
  amount: '5000000',
  spender: router,
  nonce: '7',
  deadline: '1893456000',
})

describe('typed-data reviews', () => {
  it('shows the domain, primary type and the message tree', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [owner, permit2Single])
    expect(review.items[0]).toEqual({
      label: 'Domain',
      items: [
        { label: 'name', value: 'Permit2' },
        { label: 'chainId', value: '1' },
        { label: 'verifyingContract', value: permit2 },
      ],
    })
    expect(review.items[1]).toEqual({ label: 'Primary type', value: 'PermitSingle' })
    expect(review.items[2]).toEqual({
      label: 'Message',
      items: [
        {
          label: 'details (PermitDetails)',
          items: [
            { label: 'token', value: token },
            { label: 'amount', value: maxUint160.toString() },
            { label: 'expiration', value: '1893456000' },
            { label: 'nonce', value: '0' },
          ],
        },
        { label: 'spender', value: router },
        { label: 'sigDeadline', value: '1893456000' },
      ],
    })
  })

  it('ERC-2612 Permit: caution naming spender and amount', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [owner, erc2612Permit(1000000n)])
    expect(review.warnings).toEqual([
      {
        code: 'typed_data.permit',
        severity: 'caution',
        message: `Token permit: lets ${router} spend 1000000 (base units) of token ${token}.`,
      },
    ])
  })

  it('ERC-2612 Permit for max uint256: says unlimited', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [owner, erc2612Permit(maxUint256)])
    expect(review.warnings[0]?.message).toContain(`lets ${router} spend an unlimited amount`)
  })

  it('Permit2 PermitSingle: caution naming spender, amount and token', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [owner, permit2Single])
    expect(review.warnings).toEqual([
      {
        code: 'typed_data.permit2',
        severity: 'caution',
        message: `Permit2 signature: lets ${router} spend an unlimited amount (Permit2's uint160 maximum, ${maxUint160}) of ${token} (until 2030-01-01T00:00:00.000Z) through ${permit2}.`,
      },
    ])
  })

  it('Permit2 PermitTransferFrom: caution naming spender and amount', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [owner, permit2Transfer])
    expect(review.warnings).toEqual([
      {
        code: 'typed_data.permit2',
        severity: 'caution',
        message: `Permit2 signature: lets ${router} spend 5000000 (base units) of ${token} through ${permit2}.`,
      },
    ])
  })

  it.each([
    ['TransferWithAuthorization', 'anyone holding this signature can submit it'],
    ['ReceiveWithAuthorization', 'only the recipient can submit it'],
  ])(
    'EIP-3009 %s: a caution naming amount, token, recipient and validity, as a Permit gets one',
    async (primaryType, who) => {
      // USDC's domain, as its Permit's.
      const typedData = transferWithAuthorization({
        chainId: 1,
        token,
        from: owner,
        to: router,
        value: '1000000000',
        primaryType,
        validBefore: '1893456000',
      })
      const review = await reviewOf('eth_signTypedData_v4', [owner, typedData])
      expect(review.warnings).toEqual([
        {
          code: 'typed_data.transfer_authorization',
          severity: 'caution',
          message: `EIP-3009 ${primaryType}: this signature moves 1000000000 base units of your tokens of ${token} to ${router}, valid from 1970-01-01T00:00:00.000Z until 2030-01-01T00:00:00.000Z; ${who}, no transaction of yours needed.`,
        },
      ])
    },
  )

  it('a string with a bidi override or a control character is shown written out, with a caution', async () => {
    const { types, domain } = erc2612Permit(0n)
    const review = await reviewOf('eth_signTypedData_v4', [
      owner,
      {
        types: { EIP712Domain: types.EIP712Domain, Order: [{ name: 'item', type: 'string' }] },
        primaryType: 'Order',
        domain: { ...domain, name: 'Shop\u0007' },
        message: { item: 'invoice \u202egpj.exe' },
      },
    ])
    const shown = JSON.stringify(review.items)
    expect(shown).toContain('{"label":"item","value":"invoice \\\\u{202E}gpj.exe"}')
    expect(shown).toContain('{"label":"name","value":"Shop\\\\u{7}"}')
    expect(review.warnings).toEqual([
      {
        code: 'typed_data.hidden_characters',
        severity: 'caution',
        message:
          'The message holds characters that hide or reorder text (in name, item); they are shown written out, as \\u{…}.',
      },
    ])
  })

  it('a domain field EIP712Domain does not declare is not signed, so neither shown nor named', async () => {
    const permit = erc2612Permit(1000000n)
    const undeclared = {
      ...permit,
      types: { ...permit.types, EIP712Domain: permit.types.EIP712Domain.slice(0, 3) },
    }
    const review = await reviewOf('eth_signTypedData_v4', [owner, undeclared])
    expect(undeclared.domain.verifyingContract).toBe(token)
    expect(review.items[0]).toEqual({
      label: 'Domain',
      items: [
        { label: 'name', value: 'USD Coin' },
        { label: 'version', value: '2' },
        { label: 'chainId', value: '1' },
      ],
    })
    expect(review.items).toContainEqual({
      label: 'Digest',
      value: hashTypedData({
        ...undeclared,
        domain: { name: 'USD Coin', version: '2', chainId: 1 },
      } as never),
    })
    expect(review.warnings[0]?.message).toBe(
      `Token permit: lets ${router} spend 1000000 (base units) of token unknown contract.`,
    )
  })

  it('a message without a spender carries no warning', async () => {
    const review = await reviewOf('eth_signTypedData_v4', [
      owner,
      {
        types: { EIP712Domain: [], Note: [{ name: 'text', type: 'string' }] },
        primaryType: 'Note',
        domain: {},
        message: { text: 'hello' },
      },
    ])
    expect(review.warnings).toEqual([])
  })
})

describe('message reviews', () => {
  it('hex that decodes to text is shown as text', async () => {
    const review = await reviewOf('personal_sign', ['0x48656c6c6f2c20776f726c6421', owner])
    expect(review.items).toEqual([{ label: 'Message', value: 'Hello, world!' }])
  })

  it('binary is shown as hex with its length', async () => {
    const review = await reviewOf('personal_sign', [
      '0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f',
      owner,
    ])
    expect(review.items).toEqual([
      { label: 'Message (hex)', value: '0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f' },
      { label: 'Length', value: '32 bytes' },
    ])
  })

  it('text with bidi controls is shown as hex, so it cannot disguise itself', async () => {
    const review = await reviewOf('personal_sign', ['pay \u202etxet', owner])
    expect(review.items).toEqual([
      { label: 'Message (hex)', value: '0x70617920e280ae74786574' },
      { label: 'Length', value: '11 bytes' },
    ])
  })
})
