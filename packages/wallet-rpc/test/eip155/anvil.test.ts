import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import {
  createPublicClient,
  custom,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEther,
  parseGwei,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpProvider, mnemonicKeys, privateKeyKeys } from '../../src/eip155/index.js'
import { errorOf, type Harness, harness, minedReceipt } from './helpers.js'

/**
 * Real chain: anvil from the npm package @foundry-rs/anvil, on 127.0.0.1 with an OS-assigned port,
 * started here and stopped in afterAll. Default dev mnemonic, 10 000 ETH per account, automine.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const account0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const account1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const account2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const account3 = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const account4 = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'
const recipient = '0x000000000000000000000000000000000000dEaD'
const devKey0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

// Runtime code that always reverts with Error("nope"); init code that deploys it.
const revertingRuntime = '0x6308c379a060e01b60005260206004526004602452636e6f706560e01b60445260646000fd'
const deployRevertingInit = `0x602580600b6000396000f3${revertingRuntime.slice(2)}` as Hex

let anvil: AnvilInstance
let chain: PublicClient
let h: Harness

beforeAll(async () => {
  anvil = await startAnvil()
  chain = createPublicClient({ transport: http(anvil.url) })
  h = harness({
    keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [0, 1, 2, 3, 4] }),
    chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
  })
})

afterAll(async () => {
  await anvil?.stop()
})

const anvilRpc = (method: string, params: unknown[]) =>
  fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })

describe('eth_sendTransaction on anvil', () => {
  it('EIP-1559 (filled by the wallet): mined, recipient and sender balances change as expected', async () => {
    const value = parseEther('1.5')
    const before = await Promise.all([
      chain.getBalance({ address: recipient }),
      chain.getBalance({ address: account0 }),
    ])
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account0, to: recipient, value: toHex(value) },
    ])
    const receipt = await minedReceipt(chain, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.type).toBe('eip1559')
    const after = await Promise.all([
      chain.getBalance({ address: recipient }),
      chain.getBalance({ address: account0 }),
    ])
    expect(after[0] - before[0]).toBe(value)
    expect(before[1] - after[1]).toBe(value + receipt.gasUsed * receipt.effectiveGasPrice)
    const review = h.reviews.at(-1)!
    expect(review.items).toContainEqual({ label: 'Value', value: '1.5 ETH' })
    expect(review.items).toContainEqual({ label: 'To', value: recipient })
  })

  it('legacy (type 0x0, gasPrice filled from the node): mined with the expected balance change', async () => {
    const value = parseEther('0.25')
    const before = await chain.getBalance({ address: recipient })
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account1, to: recipient, value: toHex(value), type: '0x0' },
    ])
    const receipt = await minedReceipt(chain, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.type).toBe('legacy')
    expect((await chain.getBalance({ address: recipient })) - before).toBe(value)
    const transaction = await chain.getTransaction({ hash })
    expect(transaction.chainId).toBe(anvil.chainId) // EIP-155 replay protection
  })

  it('legacy with a dapp-given gasPrice and gas: used as given', async () => {
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account1, to: recipient, value: '0x1', gasPrice: toHex(parseGwei('3')), gas: '0x5208' },
    ])
    const transaction = await chain.getTransaction({ hash })
    expect(transaction.gasPrice).toBe(parseGwei('3'))
    expect(transaction.gas).toBe(21000n)
    expect((await minedReceipt(chain, hash)).status).toBe('success')
  })

  it('a dapp gas limit below the estimate is flagged, and the simulation shows it runs out of gas', async () => {
    const target = '0x1111111111111111111111111111111111111112'
    await anvilRpc('anvil_setCode', [target, '0x60006000556001600155']) // two SSTOREs: far above 21000
    const refused = await h.call('eth_signTransaction', [{ from: account0, to: target, gas: '0x5300' }])
    expect(errorOf(refused)).toMatchObject({ code: -32602, data: { rule: 'tx.simulation_reverted' } })
    const allowing = harness(
      {
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: 0 }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      },
      { allowDangerous: ['tx.simulation_reverted'] },
    )
    await allowing.result<Hex>('eth_signTransaction', [{ from: account0, to: target, gas: '0x5300' }])
    const { warnings } = allowing.reviews.at(-1)!
    const warning = warnings.find((entry) => entry.code === 'tx.gas_below_estimate')
    expect(warning?.severity).toBe('caution')
    expect(warning?.message).toMatch(/^The gas limit 21248 set by the site is below the node's estimate \d+;/)
    expect(warnings.find((entry) => entry.code === 'tx.simulation_reverted')?.message).toContain(
      'out of gas (all 21248 used)',
    )
  })

  it('gas is the estimate plus the margin, below the block gas limit', async () => {
    const hash = await h.result<Hex>('eth_sendTransaction', [{ from: account1, to: recipient, value: '0x2' }])
    const [transaction, block] = await Promise.all([chain.getTransaction({ hash }), chain.getBlock()])
    expect(transaction.gas).toBe((21000n * 125n) / 100n)
    expect(transaction.gas < block.gasLimit).toBe(true)
  })

  it('a dapp gas limit above the block gas limit is refused with -32602 before approval', async () => {
    const asked = h.reviews.length
    const { gasLimit } = await chain.getBlock()
    const error = errorOf(
      await h.call('eth_sendTransaction', [{ from: account0, to: recipient, gas: toHex(gasLimit + 1n) }]),
    )
    expect(error).toEqual({
      code: -32602,
      message: 'Invalid params.',
      data: { path: '0.gas', reason: `gas ${gasLimit + 1n} exceeds the block gas limit ${gasLimit}` },
    })
    expect(h.reviews.length).toBe(asked)
  })

  it('50 concurrent sends from one account get 50 distinct nonces and are all mined', async () => {
    const start = await chain.getTransactionCount({ address: account2 })
    const hashes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        h.result<Hex>('eth_sendTransaction', [{ from: account2, to: recipient, value: toHex(index + 1) }]),
      ),
    )
    expect(new Set(hashes).size).toBe(50)
    const receipts = await Promise.all(hashes.map((hash) => minedReceipt(chain, hash)))
    expect(receipts.every((receipt) => receipt.status === 'success')).toBe(true)
    const nonces = await Promise.all(hashes.map(async (hash) => (await chain.getTransaction({ hash })).nonce))
    expect(new Set(nonces).size).toBe(50)
    expect(Math.min(...nonces)).toBe(start)
    expect(Math.max(...nonces)).toBe(start + 49)
    expect(await chain.getTransactionCount({ address: account2 })).toBe(start + 50)
  })

  it('a reverting call answers -32603 with the node reason, before approval', async () => {
    const target = '0x1111111111111111111111111111111111111111'
    await anvilRpc('anvil_setCode', [target, revertingRuntime])
    const asked = h.reviews.length
    const response = await h.call('eth_sendTransaction', [{ from: account0, to: target, data: '0x12345678' }])
    expect(errorOf(response)).toEqual({
      code: -32603,
      message: 'Chain provider error.',
      data: { reason: 'execution reverted: nope' },
    })
    expect(h.reviews.length).toBe(asked)
  })

  it('a reverting call with a dapp-set gas is refused by policy: a danger warning with the revert reason', async () => {
    const target = '0x1111111111111111111111111111111111111111'
    await anvilRpc('anvil_setCode', [target, revertingRuntime])
    const asked = h.reviews.length
    const response = await h.call('eth_sendTransaction', [
      { from: account0, to: target, data: '0x12345678', gas: '0x30000' },
    ])
    expect(errorOf(response)).toEqual({
      code: -32602,
      message: 'Refused by wallet policy.',
      data: {
        rule: 'tx.simulation_reverted',
        reason:
          'The transaction reverts when simulated (nope): it would fail and still cost its network fee.',
      },
    })
    expect(h.reviews.length).toBe(asked)
  })

  it('an unaffordable value is refused (-32602 tx.insufficient_funds) before any estimate, before approval', async () => {
    const asked = h.reviews.length
    const response = await h.call('eth_sendTransaction', [
      { from: account3, to: recipient, value: toHex(parseEther('1000000')) },
    ])
    expect(errorOf(response)).toMatchObject({
      code: -32602,
      data: {
        rule: 'tx.insufficient_funds',
        reason: expect.stringMatching(
          new RegExp(
            `^insufficient funds: the transaction sends 1000000 ETH, but ${account3} holds [0-9.]+ ETH$`,
          ),
        ),
      },
    })
    expect(h.reviews.length).toBe(asked)
  })

  it('an ERC-20 transfer review shows the amount in token units read from the token', async () => {
    // A stand-in token: decimals() answers 6, any other call answers the string "USDC".
    const token = '0x2222222222222222222222222222222222222222'
    const tokenRuntime =
      '0x60003560e01c63313ce56714602957602060005260046020526355534443' +
      '60e01b60405260606000f35b600660005260206000f3'
    await anvilRpc('anvil_setCode', [token, tokenRuntime])
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 2500000n] })
    await h.result<Hex>('eth_signTransaction', [{ from: account0, to: token, data }])
    const review = h.reviews.at(-1)!
    expect(review.items).toContainEqual({ label: 'Amount (token base units)', value: '2500000' })
    expect(review.items).toContainEqual({ label: 'Amount (USDC, as the token reports)', value: '2.5' })
  })

  it('a value the balance covers but not with the max fee is refused before approval', async () => {
    const poor = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' // dev account #9, not in the wallet's keys
    const w = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: 9 }),
      chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
    })
    await anvilRpc('anvil_setBalance', [poor, toHex(parseEther('1'))])
    const error = errorOf(
      await w.call('eth_sendTransaction', [
        { from: poor, to: recipient, value: toHex(parseEther('1') - 1000n) },
      ]),
    )
    expect(error).toMatchObject({ code: -32602, data: { rule: 'tx.insufficient_funds' } })
    expect((error.data as { reason: string }).reason).toMatch(
      new RegExp(
        `^insufficient funds: its value and maximum network fee come to 1\\.[0-9]+ ETH, but ${poor} holds 1 ETH$`,
      ),
    )
    expect(w.reviews).toEqual([])
  })

  it('contract creation is flagged in the review and deploys', async () => {
    const hash = await h.result<Hex>('eth_sendTransaction', [{ from: account3, data: deployRevertingInit }])
    const review = h.reviews.at(-1)!
    expect(review.warnings.map((warning) => warning.code)).toContain('tx.contract_creation')
    expect(review.items).toContainEqual({ label: 'To', value: 'New contract (contract creation)' })
    const receipt = await minedReceipt(chain, hash)
    expect(receipt.status).toBe('success')
    expect(await chain.getCode({ address: receipt.contractAddress! })).toBe(revertingRuntime)
  })

  it('a rejected request leaves no nonce gap', async () => {
    const rejecting = harness(
      {
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: 4 }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      },
      {
        approve: (review) =>
          !review.items.some((entry) => 'value' in entry && entry.value.startsWith('0.000000000000000007')),
      },
    )
    const start = await chain.getTransactionCount({ address: account4 })
    const rejected = await rejecting.call('eth_sendTransaction', [
      { from: account4, to: recipient, value: '0x7' },
    ])
    expect(errorOf(rejected).code).toBe(4001)
    const hash = await rejecting.result<Hex>('eth_sendTransaction', [
      { from: account4, to: recipient, value: '0x8' },
    ])
    expect((await chain.getTransaction({ hash })).nonce).toBe(start)
  })
})

describe('eth_signTransaction then eth_sendRawTransaction on anvil', () => {
  it('signs without broadcasting, then the raw transaction is broadcast and mined', async () => {
    const value = parseEther('0.01')
    const raw = await h.result<Hex>('eth_signTransaction', [
      { from: account1, to: recipient, value: toHex(value) },
    ])
    const hash = keccak256(raw)
    await expect(chain.getTransaction({ hash })).rejects.toThrow()
    const before = await chain.getBalance({ address: recipient })
    expect(await h.result<Hex>('eth_sendRawTransaction', [raw])).toBe(hash)
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect((await chain.getBalance({ address: recipient })) - before).toBe(value)
    // The next wallet-filled send continues after the raw transaction's nonce.
    const next = await h.result<Hex>('eth_sendTransaction', [{ from: account1, to: recipient, value: '0x1' }])
    const [sent, following] = await Promise.all([
      chain.getTransaction({ hash }),
      chain.getTransaction({ hash: next }),
    ])
    expect(following.nonce).toBe(sent.nonce + 1)
  })

  it('relays a raw transaction signed elsewhere, with a review naming its signer', async () => {
    const outsider = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') // dev #1
    const nonce = await chain.getTransactionCount({ address: outsider.address, blockTag: 'pending' })
    const raw = await outsider.signTransaction({
      chainId: anvil.chainId,
      nonce,
      to: recipient,
      value: 5n,
      gas: 21000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const relay = harness({
      keys: privateKeyKeys('0x4646464646464646464646464646464646464646464646464646464646464646'),
      chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
    })
    const hash = await relay.result<Hex>('eth_sendRawTransaction', [raw])
    expect(hash).toBe(keccak256(raw))
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect(relay.reviews[0]?.account).toBe(outsider.address)
    expect(relay.reviews[0]?.warnings.map((warning) => warning.code)).toContain('raw_tx.foreign_sender')
  })

  it('a raw transaction for another chain is refused with -32602 before broadcast', async () => {
    const raw = await privateKeyToAccount(devKey0).signTransaction({
      chainId: 1,
      nonce: 0,
      to: recipient,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const error = errorOf(await h.call('eth_sendRawTransaction', [raw]))
    expect(error.code).toBe(-32602)
    expect(error.data).toMatchObject({ rule: 'chain_mismatch' })
  })

  it('a pre-EIP-155 raw transaction (no chainId, replayable) is refused with -32602', async () => {
    const raw = await privateKeyToAccount(devKey0).signTransaction({
      type: 'legacy',
      nonce: 0,
      to: recipient,
      value: 1n,
      gas: 21000n,
      gasPrice: parseGwei('20'),
    })
    const error = errorOf(await h.call('eth_sendRawTransaction', [raw]))
    expect(error.code).toBe(-32602)
    expect(error.data).toMatchObject({ rule: 'tx.replayable' })
  })
})

describe('provider checks on anvil', () => {
  it('a provider hash that is not keccak256(raw) is an error, not a success', async () => {
    const forward = http(anvil.url)({})
    const lying = createPublicClient({
      transport: custom({
        async request({ method, params }) {
          const answer = await forward.request({ method, params } as never)
          return method === 'eth_sendRawTransaction' ? keccak256('0x1234') : answer
        },
      }),
    })
    const w = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: 3 }),
      chains: [{ chainId: anvil.chainId, provider: lying }],
    })
    const error = errorOf(
      await w.call('eth_sendTransaction', [{ from: account3, to: recipient, value: '0x1' }]),
    )
    expect(error.code).toBe(-32603)
    expect((error.data as { reason: string }).reason).toMatch(
      /^provider returned hash 0x[0-9a-f]{64}, expected 0x/,
    )
  })

  it('a provider serving another chain id is refused with -32603', async () => {
    const w = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic }),
      chains: [{ chainId: 1, provider: httpProvider(anvil.url) }],
    })
    const error = errorOf(
      await w.call('eth_sendTransaction', [{ from: account0, to: recipient, value: '0x1' }]),
    )
    expect(error).toEqual({
      code: -32603,
      message: 'Chain provider error.',
      data: { reason: `provider serves chain ${anvil.chainId}, configured as eip155:1` },
    })
  })

  it('signing-only chains answer sends with a clear -32603', async () => {
    const w = harness({ keys: mnemonicKeys({ mnemonic: devMnemonic }), chains: [1] })
    const error = errorOf(
      await w.call('eth_sendTransaction', [{ from: account0, to: recipient, value: '0x1' }]),
    )
    expect(error).toEqual({
      code: -32603,
      message: 'Chain provider error.',
      data: { reason: 'no chain provider configured for eip155:1' },
    })
  })
})

describe('a pre-London chain (anvil --hardfork berlin, no base fee)', () => {
  it('eth_sendTransaction falls back to a legacy gasPrice on its own', async () => {
    const berlin = await startAnvil({ args: ['--hardfork', 'berlin'] })
    try {
      const client = createPublicClient({ transport: http(berlin.url) })
      expect((await client.getBlock()).baseFeePerGas ?? undefined).toBeUndefined()
      const w = harness({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [{ chainId: berlin.chainId, provider: httpProvider(berlin.url) }],
      })
      const hash = await w.result<Hex>('eth_sendTransaction', [
        { from: account0, to: recipient, value: '0x64' },
      ])
      const receipt = await minedReceipt(client, hash)
      expect(receipt.status).toBe('success')
      expect(receipt.type).toBe('legacy')
      expect(await client.getBalance({ address: recipient })).toBe(100n)
      const review = w.reviews[0]!
      expect(review.items.some((entry) => 'value' in entry && entry.label === 'Gas price')).toBe(true)
      // An explicit EIP-1559 request on such a chain is refused with a clear reason.
      const error = errorOf(
        await w.call('eth_sendTransaction', [{ from: account0, to: recipient, type: '0x2' }]),
      )
      expect(error.code).toBe(-32602)
      expect(error.data).toMatchObject({ path: '0.type' })
    } finally {
      await berlin.stop()
    }
  })
})
