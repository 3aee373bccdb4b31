import {
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type PublicClient,
  parseEther,
  toHex,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, type Harness, minedReceipt } from '../helpers.js'
import { permit2SingleTypedData } from '../permit2.js'
import { devAccounts, type PragueChain, startPragueChain } from './pragueChain.js'

/**
 * EIP-5792 batches on a real chain: anvil (`@foundry-rs/anvil`) with `--hardfork prague`, OpenZeppelin 5.x's
 * ERC-7821 executor deployed as the delegate (packages/devchains/src/eip7702Executor.ts) and OpenZeppelin 4.9.6's
 * ERC20PresetFixedSupply as the token.
 */
const [account0, account1, account2] = devAccounts
const recipient = '0x000000000000000000000000000000000000dEaD'
const foreignDelegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'

let prague: PragueChain
let anvil: PragueChain['anvil']
let chain: PublicClient
let delegate: Hex
let token: Hex
let h: Harness
/** The same chain without a delegate: sequential batches. */
let plain: Harness

const rpc = (method: string, params: unknown[]) => prague.rpc(method, params)

const call = (functionName: 'approve' | 'transfer' | 'transferFrom', args: readonly unknown[]) => ({
  to: token,
  data: encodeFunctionData({ abi: erc20Abi, functionName, args: args as never }),
})

const balanceOf = (owner: string) =>
  chain.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] })

const sendCalls = (wallet: Harness, request: Record<string, unknown>) =>
  wallet.call('wallet_sendCalls', [
    { version: '2.0.0', chainId: toHex(anvil.chainId), atomicRequired: true, ...request },
  ])

beforeAll(async () => {
  prague = await startPragueChain()
  ;({ anvil, chain, delegate } = prague)
  token = await prague.deployToken('Batch Token', 'BAT', account0)
  h = prague.wallet([0, 1, 2])
  plain = prague.wallet([0, 1, 2], { delegate: false })
}, 60_000)

afterAll(async () => {
  await prague?.stop()
})

describe('wallet_sendCalls on anvil (prague)', () => {
  it('getCapabilities: atomic ready before the first batch (it upgrades the account)', async () => {
    expect(await h.result('wallet_getCapabilities', [account0, [toHex(anvil.chainId)]])).toEqual({
      [toHex(anvil.chainId)]: { atomic: { status: 'ready' }, dataSuffix: { supported: true } },
    })
    expect(await plain.result('wallet_getCapabilities', [account0])).toEqual({
      [toHex(anvil.chainId)]: { atomic: { status: 'unsupported' }, dataSuffix: { supported: true } },
    })
  })

  it('approve + transferFrom in ONE type-4 transaction that upgrades the account; status 200', async () => {
    const before = await balanceOf(recipient)
    const nonceBefore = await chain.getTransactionCount({ address: account0 })
    const result = await h.result<{
      id: string
      capabilities: { caip345: { caip2: string; transactionHashes: Hex[] } }
    }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        chainId: toHex(anvil.chainId),
        from: account0,
        atomicRequired: true,
        calls: [call('approve', [account0, 100n]), call('transferFrom', [account0, recipient, 60n])],
      },
    ])
    const review = h.reviews.at(-1)!
    expect(review.title).toBe('Send 2 calls (one atomic transaction)')
    expect(review.warnings.map((warning) => warning.code)).toContain('eip7702.account_upgrade')
    expect(JSON.stringify(review.items)).toContain(getAddress(delegate))
    expect(JSON.stringify(review.items)).toContain('ERC-20 transferFrom')
    expect(JSON.stringify(review.items)).toContain('Balance changes (simulated)')
    const { transactionHashes, caip2 } = result.capabilities.caip345
    expect(caip2).toBe(`eip155:${anvil.chainId}`)
    expect(transactionHashes).toHaveLength(1)
    const receipt = await minedReceipt(chain, transactionHashes[0]!)
    expect(receipt.status).toBe('success')
    expect(receipt.type).toBe('eip7702')
    const transaction = await chain.getTransaction({ hash: transactionHashes[0]! })
    expect(transaction.to?.toLowerCase()).toBe(account0.toLowerCase())
    expect(transaction.authorizationList?.[0]).toMatchObject({
      chainId: anvil.chainId,
      nonce: nonceBefore + 1,
      address: delegate.toLowerCase(),
    })
    expect(await chain.getCode({ address: account0 })).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`)
    expect((await balanceOf(recipient)) - before).toBe(60n)
    // Nonce: the transaction's and the authorization's.
    expect(await chain.getTransactionCount({ address: account0 })).toBe(nonceBefore + 2)
    const status = await h.result<Record<string, unknown>>('wallet_getCallsStatus', [result.id])
    expect(status).toMatchObject({
      version: '2.0.0',
      id: result.id,
      chainId: toHex(anvil.chainId),
      status: 200,
      atomic: true,
    })
    expect(status.receipts).toHaveLength(1)
    expect(await h.result('wallet_getCapabilities', [account0])).toMatchObject({
      [toHex(anvil.chainId)]: { atomic: { status: 'supported' } },
    })
  })

  it('a delegated account (atomic supported): two transfers in one plain EIP-1559 transaction to itself, with the ERC-8021 suffix', async () => {
    const suffix = '0x1234567890abcdef8021'
    const result = await h.result<{ id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }>(
      'wallet_sendCalls',
      [
        {
          version: '2.0.0',
          chainId: toHex(anvil.chainId),
          from: account0,
          atomicRequired: true,
          calls: [
            call('transfer', [account1, 5n]),
            call('transfer', [account2, 7n]),
            { to: recipient, value: toHex(parseEther('0.01')) },
          ],
          capabilities: { dataSuffix: { value: suffix, optional: true } },
        },
      ],
    )
    expect(h.reviews.at(-1)!.warnings.map((warning) => warning.code)).not.toContain('eip7702.account_upgrade')
    const [hash] = result.capabilities.caip345.transactionHashes
    const receipt = await minedReceipt(chain, hash!)
    expect(receipt.type).toBe('eip1559')
    expect(receipt.status).toBe('success')
    expect((await chain.getTransaction({ hash: hash! })).input.endsWith(suffix.slice(2))).toBe(true)
    expect(await balanceOf(account2)).toBe(7n)
  })

  it('no delegate: sequential transactions with consecutive nonces; status 200, atomic false', async () => {
    const nonceBefore = await chain.getTransactionCount({ address: account1 })
    const result = await plain.result<{
      id: string
      capabilities: { caip345: { transactionHashes: Hex[] } }
    }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        chainId: toHex(anvil.chainId),
        from: account1,
        atomicRequired: false,
        calls: [
          { to: recipient, value: '0x1' },
          { to: recipient, value: '0x2' },
        ],
      },
    ])
    const hashes = result.capabilities.caip345.transactionHashes
    expect(hashes).toHaveLength(2)
    const nonces = await Promise.all(hashes.map(async (hash) => (await chain.getTransaction({ hash })).nonce))
    expect(nonces).toEqual([nonceBefore, nonceBefore + 1])
    for (const hash of hashes) await minedReceipt(chain, hash)
    expect(await plain.result('wallet_getCallsStatus', [result.id])).toMatchObject({
      status: 200,
      atomic: false,
    })
  })

  it('the 1.0 shape (no atomicRequired) is accepted and answered in 2.0.0', async () => {
    const result = await plain.result<{ id: string }>('wallet_sendCalls', [
      {
        version: '1.0',
        chainId: toHex(anvil.chainId),
        from: account1,
        calls: [{ to: recipient, value: '0x3' }],
      },
    ])
    expect(result.id).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('error codes: 5760, 5700, 5710, 5720, 5730, 5740, 4100, and -32602 naming the field', async () => {
    const one = [{ to: recipient, value: '0x1' }]
    expect(errorOf(await sendCalls(plain, { from: account1, calls: one })).code).toBe(5760)
    expect(
      errorOf(
        await sendCalls(h, {
          from: account1,
          calls: one,
          capabilities: { paymasterService: { url: 'https://pm' } },
        }),
      ),
    ).toMatchObject({
      code: 5700,
      data: { path: '0.capabilities.paymasterService' },
    })
    expect(
      errorOf(
        await sendCalls(h, {
          from: account1,
          calls: [{ ...one[0], capabilities: { dataSuffix: { value: '0x8021' } } }],
        }),
      ),
    ).toMatchObject({ code: 5700, data: { path: '0.calls.0.capabilities.dataSuffix' } })
    expect(errorOf(await sendCalls(h, { from: account1, calls: one, chainId: '0x1' })).code).toBe(5710)
    expect(errorOf(await sendCalls(h, { from: account1, calls: Array(17).fill(one[0]) })).code).toBe(5740)
    expect(errorOf(await sendCalls(h, { from: recipient, calls: one })).code).toBe(4100)
    expect(errorOf(await h.call('wallet_getCallsStatus', ['0xunknown'])).code).toBe(5730)
    expect(
      errorOf(await sendCalls(h, { from: account1, calls: [{ to: recipient, value: '12' }] })),
    ).toMatchObject({
      code: -32602,
      data: { path: '0.calls.0.value' },
    })
    expect(
      errorOf(
        await h.call('wallet_sendCalls', [
          { version: '2.0.0', chainId: toHex(anvil.chainId), from: account1, calls: one },
        ]),
      ),
    ).toMatchObject({ code: -32602, data: { path: '0.atomicRequired' } })
    const first = await sendCalls(h, { id: 'batch-1', from: account1, calls: one })
    expect(first).toHaveProperty('result')
    expect(errorOf(await sendCalls(h, { id: 'batch-1', from: account1, calls: one })).code).toBe(5720)
  })

  it('delegated elsewhere: atomic refused with 5760 naming the foreign delegate; capabilities unsupported', async () => {
    await rpc('anvil_setCode', [account2, `0xef0100${foreignDelegate.slice(2).toLowerCase()}`])
    const error = errorOf(await sendCalls(h, { from: account2, calls: [{ to: recipient, value: '0x1' }] }))
    expect(error).toMatchObject({
      code: 5760,
      data: { rule: 'eip7702.foreign_delegate', severity: 'danger', delegate: foreignDelegate },
    })
    expect(await h.result('wallet_getCapabilities', [account2])).toMatchObject({
      [toHex(anvil.chainId)]: { atomic: { status: 'unsupported' } },
    })
    await rpc('anvil_setCode', [account2, '0x'])
  })

  it('5750: a declined upgrade for a batch that required atomicity; nothing sent, no nonce taken, id free', async () => {
    const from = devAccounts[9]
    // A wallet whose user turned account upgrades off: its approve declines every review asking for one.
    const noUpgrades = prague.wallet([9], {
      approve: (review) => !review.warnings.some((warning) => warning.code === 'eip7702.account_upgrade'),
    })
    const nonceBefore = await chain.getTransactionCount({ address: from, blockTag: 'pending' })
    const declined = errorOf(
      await sendCalls(noUpgrades, { id: 'upgrade-declined', from, calls: [{ to: recipient, value: '0x1' }] }),
    )
    expect(declined).toMatchObject({ code: 5750, message: 'Rejected upgrade.' })
    expect((declined.data as { reason: string }).reason).toContain(getAddress(delegate))
    expect(noUpgrades.reviews.at(-1)!.warnings.map((warning) => warning.code)).toContain(
      'eip7702.account_upgrade',
    )
    expect(await chain.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(nonceBefore)
    expect(await chain.getCode({ address: from })).toBeUndefined()
    expect(errorOf(await noUpgrades.call('wallet_getCallsStatus', ['upgrade-declined'])).code).toBe(5730)
    // Not required atomic: the wallet still asked for the upgrade (one transaction where it can), so a
    // "no" is the plain refusal, EIP-1193's 4001.
    expect(
      errorOf(
        await sendCalls(noUpgrades, {
          from,
          atomicRequired: false,
          calls: [{ to: recipient, value: '0x1' }],
        }),
      ).code,
    ).toBe(4001)
    // No upgrade in the review (a chain without a delegate): the same approve says yes and the calls go out.
    const sequential = prague.wallet([9], {
      delegate: false,
      approve: (review) => !review.warnings.some((warning) => warning.code === 'eip7702.account_upgrade'),
    })
    const sent = await sequential.result<{ capabilities: { caip345: { transactionHashes: Hex[] } } }>(
      'wallet_sendCalls',
      [
        {
          version: '2.0.0',
          chainId: toHex(anvil.chainId),
          from,
          atomicRequired: false,
          calls: [{ to: recipient, value: '0x1' }],
        },
      ],
    )
    const hash = sent.capabilities.caip345.transactionHashes[0]!
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect((await chain.getTransaction({ hash })).nonce).toBe(nonceBefore)
  })

  it('a rejected batch sends nothing and leaves no nonce gap; its id stays free', async () => {
    const rejecting = prague.wallet([1], { approve: () => false })
    const nonceBefore = await chain.getTransactionCount({ address: account1, blockTag: 'pending' })
    const response = await sendCalls(rejecting, {
      id: 'rejected-1',
      from: account1,
      calls: [
        { to: recipient, value: '0x1' },
        { to: recipient, value: '0x2' },
      ],
    })
    expect(errorOf(response).code).toBe(4001)
    expect(await chain.getTransactionCount({ address: account1, blockTag: 'pending' })).toBe(nonceBefore)
    expect(errorOf(await rejecting.call('wallet_getCallsStatus', ['rejected-1'])).code).toBe(5730)
    // The next batch takes the very next nonce.
    const sent = await plain.result<{ capabilities: { caip345: { transactionHashes: Hex[] } } }>(
      'wallet_sendCalls',
      [
        {
          version: '2.0.0',
          chainId: toHex(anvil.chainId),
          from: account1,
          atomicRequired: false,
          calls: [{ to: recipient, value: '0x1' }],
        },
      ],
    )
    const hash = sent.capabilities.caip345.transactionHashes[0]!
    expect((await chain.getTransaction({ hash })).nonce).toBe(nonceBefore)
  })
})

describe('delegation safety, before any approval', () => {
  it('eth_sendTransaction with a dapp-supplied authorizationList is refused (-32602, eip7702.dapp_authorization)', async () => {
    const count = h.reviews.length
    const error = errorOf(
      await h.call('eth_sendTransaction', [
        {
          from: account0,
          to: recipient,
          authorizationList: [{ chainId: '0x1', address: foreignDelegate, nonce: '0x0' }],
        },
      ]),
    )
    expect(error).toMatchObject({ code: -32602, data: { rule: 'eip7702.dapp_authorization' } })
    expect(h.reviews.length).toBe(count)
  })

  it('typed data whose verifyingContract is the signing account is danger: refused', async () => {
    const typedData = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Delegation: [{ name: 'delegate', type: 'address' }],
      },
      primaryType: 'Delegation',
      domain: { name: 'Delegator', chainId: anvil.chainId, verifyingContract: account0 },
      message: { delegate: recipient },
    }
    expect(errorOf(await h.call('eth_signTypedData_v4', [account0, typedData]))).toMatchObject({
      code: -32602,
      data: { rule: 'typed_data.self_verifying_contract' },
    })
  })

  it("Permit2 PermitSingle: unlimited judged at uint160's maximum; a spender without code is a caution", async () => {
    const typedData = permit2SingleTypedData(anvil.chainId, {
      details: { token, amount: (2n ** 160n - 1n).toString(), expiration: '281474976710655', nonce: '0' },
      spender: recipient,
      sigDeadline: '1900000000',
    })
    await h.result('eth_signTypedData_v4', [account0, typedData])
    const warnings = h.reviews.at(-1)!.warnings
    expect(warnings.find((warning) => warning.code === 'typed_data.permit2')?.message).toContain(
      "unlimited amount (Permit2's uint160 maximum",
    )
    expect(warnings.find((warning) => warning.code === 'typed_data.permit2')?.message).toContain(
      'never expiring',
    )
    expect(warnings.map((warning) => warning.code)).toContain('permit.spender_not_contract')
  })
})

describe('wallet_watchAsset, wallet_addEthereumChain, wallet_showCallsStatus', () => {
  const asked: unknown[] = []
  const hosted = () =>
    prague.wallet([0], {
      eip155: {
        watchAsset: (asset) => {
          asked.push(asset)
          return asset.symbol === 'BAT'
        },
        addEthereumChain: (chain) => {
          asked.push(chain)
          return false
        },
        showCallsStatus: (batch) => {
          asked.push(batch)
        },
      },
    })

  it('watchAsset: symbol and decimals checked against the contract, then the host answers true/false', async () => {
    const wallet = hosted()
    asked.length = 0
    expect(
      await wallet.result('wallet_watchAsset', {
        type: 'ERC20',
        options: { address: token, symbol: 'BAT', decimals: 18 },
      }),
    ).toBe(true)
    expect(asked).toMatchObject([
      { chainId: anvil.chainId, address: getAddress(token), symbol: 'BAT', decimals: 18 },
    ])
    expect(
      errorOf(
        await wallet.call('wallet_watchAsset', {
          type: 'ERC20',
          options: { address: token, symbol: 'USDC', decimals: 18 },
        }),
      ),
    ).toMatchObject({ code: -32602, data: { rule: 'asset.metadata_mismatch' } })
    expect(
      errorOf(
        await wallet.call('wallet_watchAsset', [
          { type: 'ERC20', options: { address: recipient, symbol: 'X', decimals: 18 } },
        ]),
      ),
    ).toMatchObject({ code: -32602, data: { rule: 'asset.not_erc20' } })
    expect(
      errorOf(await wallet.call('wallet_watchAsset', { type: 'ERC721', options: { address: token } })),
    ).toMatchObject({
      code: -32602,
      data: { path: 'type' },
    })
    // Without the callback the method is not offered at all.
    expect(
      errorOf(await h.call('wallet_watchAsset', { type: 'ERC20', options: { address: token } })).code,
    ).toBe(-32601)
  })

  it('addEthereumChain: checks the fields and the RPC before asking, and asks nothing when they fail', async () => {
    const wallet = hosted()
    const chain = (fields: Record<string, unknown>) => [
      {
        chainId: '0x7a6a',
        chainName: 'Other',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: [anvil.url],
        ...fields,
      },
    ]
    expect(
      errorOf(await wallet.call('wallet_addEthereumChain', chain({ rpcUrls: ['http://rpc.example'] }))),
    ).toMatchObject({
      code: -32602,
      data: { path: '0.rpcUrls.0' },
    })
    expect(errorOf(await wallet.call('wallet_addEthereumChain', chain({ chainId: '31338' })))).toMatchObject({
      code: -32602,
      data: { path: '0.chainId' },
    })
    expect(
      errorOf(
        await wallet.call(
          'wallet_addEthereumChain',
          chain({ nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 6 } }),
        ),
      ),
    ).toMatchObject({ code: -32602, data: { path: '0.nativeCurrency.decimals' } })
    // anvil answers 0x7a69, not 0x7a6a.
    expect(errorOf(await wallet.call('wallet_addEthereumChain', chain({})))).toMatchObject({
      code: -32602,
      data: { rule: 'chain.rpc_mismatch' },
    })
    asked.length = 0
    expect(
      errorOf(
        await wallet.call('wallet_addEthereumChain', chain({ chainId: '0x7a6a', rpcUrls: [anvil.url] })),
      ),
    ).toMatchObject({ code: -32602 })
    expect(asked).toEqual([])
    expect(
      await wallet.result('wallet_addEthereumChain', chain({ chainId: toHex(anvil.chainId) })),
    ).toBeNull()
    expect(wallet.wallet.supported()[0]!.chains).toEqual([`eip155:${anvil.chainId}`])
  })

  it('showCallsStatus hands the stored batch to the host; an unknown id is 5730', async () => {
    const wallet = hosted()
    const { id } = await wallet.result<{ id: string }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        chainId: toHex(anvil.chainId),
        from: account0,
        atomicRequired: true,
        calls: [{ to: recipient, value: '0x1' }],
      },
    ])
    asked.length = 0
    expect(await wallet.result('wallet_showCallsStatus', [id])).toBeNull()
    expect(asked).toMatchObject([{ id, atomic: true, chainId: anvil.chainId }])
    expect(errorOf(await wallet.call('wallet_showCallsStatus', ['nope'])).code).toBe(5730)
  })
})
