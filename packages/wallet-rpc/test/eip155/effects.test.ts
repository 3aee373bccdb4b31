import { encodeFunctionData, erc20Abi, type Hex, type TypedDataDefinition } from 'viem'
import { describe, expect, it } from 'vitest'
import type { ExpectedPayment } from '../../src/core/expectation.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { transactionEffects, typedDataEffects } from '../../src/eip155/effects.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { permit2Address, permit2SingleTypedData, permit2TransferTypedData } from './permit2.js'
import {
  authorizationTypes,
  permitTypes,
  transferWithAuthorization,
  usdcDomainTypes,
} from './transferWithAuthorization.js'

/**
 * What an eip155 request moves, decoded from the exact transaction or typed data (src/eip155/effects.ts), and the
 * router's comparison of it with a described payment through the real namespace (no chain needed: every
 * transaction field given, typed data signed offline).
 */

const mnemonic = 'test test test test test test test test test test test junk'
const signer = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const payee = '0x00000000000000000000000000000000000000b2'
const chainId = 'eip155:8453'

const transfer = (to: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] })
const approve = (spender: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender as Hex, amount] })

describe('transactionEffects', () => {
  const tx = (to: string | undefined, data: Hex, value = 0n) => ({
    from: signer as Hex,
    to: to as Hex | undefined,
    value,
    data,
  })

  it('decodes a native transfer, ERC-20 transfer, approve and transferFrom (with any value sent beside)', () => {
    expect(transactionEffects(chainId, tx(payee, '0x', 5n))).toEqual([
      {
        chainId,
        account: signer,
        asset: 'native',
        amount: 5n,
        recipient: payee,
        kind: 'transfer',
        form: 'native transfer',
      },
    ])
    expect(transactionEffects(chainId, tx(payee, '0x'))).toEqual([])
    expect(transactionEffects(chainId, tx(token, transfer(payee, 7n), 1n))).toEqual([
      expect.objectContaining({ asset: 'native', amount: 1n, recipient: token }),
      {
        chainId,
        account: signer,
        asset: token,
        amount: 7n,
        recipient: payee,
        kind: 'transfer',
        form: 'ERC-20 transfer',
      },
    ])
    expect(transactionEffects(chainId, tx(token, approve(payee, 2n ** 256n - 1n)))).toEqual([
      expect.objectContaining({
        kind: 'allowance',
        recipient: payee,
        amount: 2n ** 256n - 1n,
        form: 'ERC-20 approve',
      }),
    ])
    const owner = '0x00000000000000000000000000000000000000c3'
    const from = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transferFrom',
      args: [owner, payee, 9n],
    })
    // The owner's tokens move: the owner is whose assets move, not the signer, through the owner's allowance
    // to the signer (what a payment's approval to the signer covers).
    expect(transactionEffects(chainId, tx(token, from))).toEqual([
      expect.objectContaining({
        account: owner,
        recipient: payee,
        amount: 9n,
        form: 'ERC-20 transferFrom',
        via: signer,
      }),
    ])
    expect(transactionEffects(chainId, tx(token, transfer(payee, 7n)))?.[0]).not.toHaveProperty('via')
  })

  it('cannot tell for another call, trailing or dirty calldata, a deployment, or a call to the account itself', () => {
    const data = transfer(payee, 7n)
    expect(transactionEffects(chainId, tx(token, `${data}00` as Hex))).toBeUndefined()
    const dirty = `${data.slice(0, 10)}ff${data.slice(12)}` as Hex
    expect(transactionEffects(chainId, tx(token, dirty))).toBeUndefined()
    expect(transactionEffects(chainId, tx(token, '0xdeadbeef'))).toBeUndefined()
    expect(transactionEffects(chainId, tx(undefined, '0x6000'))).toBeUndefined()
    expect(transactionEffects(chainId, tx(signer.toLowerCase(), '0x', 1n))).toBeUndefined()
  })
})

const authorization = (
  primaryType: string,
  value: string,
  overrides: { from?: string; domainTypes?: { name: string; type: string }[] } = {},
) =>
  transferWithAuthorization({
    chainId: 8453,
    token,
    from: overrides.from ?? signer,
    to: payee,
    value,
    primaryType,
    ...(overrides.domainTypes === undefined ? {} : { domainTypes: overrides.domainTypes }),
  })

const effectsOf = (typedData: object) =>
  typedDataEffects(chainId, typedData as unknown as TypedDataDefinition, signer as Hex)

describe('typedDataEffects', () => {
  it('EIP-3009 TransferWithAuthorization and ReceiveWithAuthorization: a transfer of the token to `to`', () => {
    for (const primaryType of ['TransferWithAuthorization', 'ReceiveWithAuthorization']) {
      expect(effectsOf(authorization(primaryType, '1000000000'))).toEqual([
        {
          chainId,
          account: signer,
          asset: token,
          amount: 1_000_000_000n,
          recipient: payee,
          kind: 'transfer',
          form: `EIP-3009 ${primaryType}`,
        },
      ])
    }
  })

  it('not decoded when the struct is not the standard one, the domain commits to no chain, or another account pays', () => {
    const renamed = authorization('TransferWithAuthorization', '1')
    renamed.types.TransferWithAuthorization = authorizationTypes.map((field) =>
      field.name === 'value' ? { name: 'amount', type: 'uint256' } : field,
    )
    expect(effectsOf(renamed)).toBeUndefined()
    const noChain = authorization('TransferWithAuthorization', '1', {
      domainTypes: usdcDomainTypes.filter((field) => field.name !== 'chainId'),
    })
    expect(effectsOf(noChain)).toBeUndefined()
    expect(effectsOf(authorization('TransferWithAuthorization', '1', { from: payee }))).toBeUndefined()
    expect(effectsOf(authorization('Order', '1'))).toBeUndefined()
  })

  it('EIP-2612 Permit and DAI’s `allowed` permit: an allowance to the spender', () => {
    const permit = {
      types: {
        EIP712Domain: usdcDomainTypes,
        Permit: permitTypes,
      },
      primaryType: 'Permit',
      domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: token },
      message: { owner: signer, spender: payee, value: '0x0f4240', nonce: 0, deadline: '1800000000' },
    }
    expect(effectsOf(permit)).toEqual([
      expect.objectContaining({
        asset: token,
        amount: 1_000_000n,
        recipient: payee,
        kind: 'allowance',
        form: 'EIP-2612 Permit',
      }),
    ])
    const dai = {
      ...permit,
      types: {
        EIP712Domain: usdcDomainTypes,
        Permit: [
          { name: 'holder', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'expiry', type: 'uint256' },
          { name: 'allowed', type: 'bool' },
        ],
      },
      message: { holder: signer, spender: payee, nonce: 0, expiry: 0, allowed: true },
    }
    expect(effectsOf(dai)).toEqual([expect.objectContaining({ amount: 2n ** 256n - 1n, kind: 'allowance' })])
  })

  it('Permit2: PermitSingle, PermitBatch, PermitTransferFrom and a witness form, only for Permit2 itself', () => {
    const single = permit2SingleTypedData(8453, {
      details: { token, amount: '5', expiration: 0, nonce: 0 },
      spender: payee,
      sigDeadline: '1800000000',
    })
    expect(effectsOf(single)).toEqual([
      expect.objectContaining({
        asset: token,
        amount: 5n,
        recipient: payee,
        kind: 'allowance',
        form: 'Permit2 PermitSingle',
        // Whatever Permit2 moves draws on the account's ERC-20 allowance to Permit2.
        via: permit2Address,
      }),
    ])
    expect(effectsOf({ ...single, domain: { ...single.domain, verifyingContract: payee } })).toBeUndefined()
    const batch = {
      ...single,
      types: {
        ...single.types,
        PermitBatch: [
          { name: 'details', type: 'PermitDetails[]' },
          { name: 'spender', type: 'address' },
          { name: 'sigDeadline', type: 'uint256' },
        ],
      },
      primaryType: 'PermitBatch',
      message: {
        details: [single.message.details, { ...single.message.details, token: payee, amount: '6' }],
        spender: payee,
        sigDeadline: '1800000000',
      },
    }
    expect(effectsOf(batch)?.map((effect) => [effect.asset, effect.amount])).toEqual([
      [token, 5n],
      [payee, 6n],
    ])
    const transferFrom = permit2TransferTypedData(8453, {
      token,
      amount: '7',
      spender: payee,
      nonce: '1',
      deadline: '1800000000',
    })
    expect(effectsOf(transferFrom)).toEqual([
      expect.objectContaining({
        amount: 7n,
        kind: 'allowance',
        form: 'Permit2 PermitTransferFrom',
        via: permit2Address,
      }),
    ])
    const witness = {
      ...transferFrom,
      types: {
        ...transferFrom.types,
        Order: [{ name: 'id', type: 'uint256' }],
        PermitWitnessTransferFrom: [
          ...transferFrom.types.PermitTransferFrom,
          { name: 'witness', type: 'Order' },
        ],
      },
      primaryType: 'PermitWitnessTransferFrom',
      message: { ...transferFrom.message, witness: { id: '1' } },
    }
    expect(effectsOf(witness)).toEqual([
      expect.objectContaining({ amount: 7n, form: 'Permit2 PermitWitnessTransferFrom' }),
    ])
  })
})

describe('through the eip155 namespace: the router compares what it would sign with the described payment', () => {
  const described: ExpectedPayment = {
    source: 'The payment gateway',
    chainId,
    account: `${chainId}:${signer}`,
    asset: `${chainId}/erc20:${token}`,
    amount: '1000000',
    decimals: 6,
    symbol: 'USDC',
  }
  const wallet = createWalletRpc({
    namespaces: [eip155({ keys: mnemonicKeys({ mnemonic }), chains: [8453] })],
    approve: () => true,
  })
  const handle = (method: string, params: unknown) =>
    wallet.handle({ chainId, request: { id: 1, jsonrpc: '2.0', method, params }, expected: described })
  const signedTransaction = (data: Hex) =>
    handle('eth_signTransaction', [
      {
        from: signer,
        to: token,
        data,
        gas: '0x186a0',
        maxFeePerGas: '0x1',
        maxPriorityFeePerGas: '0x1',
        nonce: '0x0',
      },
    ])

  it('signs exactly the payment: an ERC-20 transfer and a TransferWithAuthorization of 1 USDC', async () => {
    expect(await signedTransaction(transfer(payee, 1_000_000n))).toMatchObject({
      result: expect.stringMatching(/^0x02/),
    })
    expect(
      await handle('eth_signTypedData_v4', [signer, authorization('TransferWithAuthorization', '1000000')]),
    ).toMatchObject({
      result: expect.stringMatching(/^0x[0-9a-f]{130}$/),
    })
  })

  it('refuses 1000 USDC where 1 USDC is shown, another token, and a message it cannot read', async () => {
    expect(await signedTransaction(transfer(payee, 1_000_000_000n))).toMatchObject({
      error: {
        data: {
          rule: 'pay.amount_mismatch',
          reason: `The payment gateway shows 1 USDC; this request transfers 1000 USDC to ${payee} (ERC-20 transfer).`,
        },
      },
    })
    const otherToken = { ...authorization('TransferWithAuthorization', '1000000') }
    otherToken.domain = { ...otherToken.domain, verifyingContract: payee }
    expect(await handle('eth_signTypedData_v4', [signer, otherToken])).toMatchObject({
      error: { data: { rule: 'pay.asset_mismatch' } },
    })
    expect(await handle('personal_sign', ['0x68656c6c6f', signer])).toMatchObject({
      error: { data: { rule: 'pay.action_unverified' } },
    })
  })
})
