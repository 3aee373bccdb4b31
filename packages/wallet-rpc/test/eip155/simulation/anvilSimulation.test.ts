import { createRequire } from 'node:module'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
  parseEther,
  toFunctionSelector,
  toHex,
  type WalletClient,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review, ReviewItem } from '../../../src/core/review.js'
import { type Eip155ChainProvider, httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import { errorOf, harness, minedReceipt } from '../helpers.js'
import { committedFixture } from './compileFixture.js'

/**
 * Transaction simulation on a real node: anvil (eth_simulateV1 with traceTransfers) with OpenZeppelin 4.9.6's
 * compiled ERC-20/721/1155 presets and GreedySwap (fixtures/GreedySwap.sol), all deployed here.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const account0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const deployer = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' // anvil's account 9, unlocked
const recipient = '0x000000000000000000000000000000000000dEaD'
const spender = '0x1234567890123456789012345678901234567890'

type Artifact = { abi: Abi; bytecode: Hex }
const openZeppelin = (name: string) =>
  createRequire(import.meta.url)(`@openzeppelin/contracts/build/contracts/${name}.json`) as Artifact

let anvil: AnvilInstance
let chain: PublicClient
let deployerClient: WalletClient
const tokens = {} as Record<'tka' | 'tkb' | 'fakeEth' | 'nft' | 'multi' | 'swap', Address>

async function deploy(artifact: Artifact, args: unknown[]): Promise<Address> {
  const hash = await deployerClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    account: deployer,
    chain: null,
  })
  const receipt = await minedReceipt(chain, hash)
  if (receipt.contractAddress == null) throw new Error('no contract deployed')
  return receipt.contractAddress
}

async function write(to: Address, abi: Abi, functionName: string, args: unknown[], from: Address = deployer) {
  const hash = await deployerClient.sendTransaction({
    to,
    data: encodeFunctionData({ abi, functionName, args }),
    account: from,
    chain: null,
  })
  expect((await minedReceipt(chain, hash)).status).toBe('success')
}

const erc20 = openZeppelin('ERC20PresetMinterPauser')
const erc721 = openZeppelin('ERC721PresetMinterPauserAutoId')
const erc1155 = openZeppelin('ERC1155PresetMinterPauser')
const greedy = committedFixture('GreedySwap') as unknown as Artifact
const hostile = committedFixture('HostileToken') as unknown as Artifact
const weth = committedFixture('WrappedEther') as unknown as Artifact

beforeAll(async () => {
  anvil = await startAnvil()
  chain = createPublicClient({ transport: http(anvil.url) })
  deployerClient = createWalletClient({ transport: http(anvil.url) })
  tokens.tka = await deploy(erc20, ['Token A', 'TKA'])
  tokens.tkb = await deploy(erc20, ['Token B', 'TKB'])
  tokens.fakeEth = await deploy(erc20, ['Not Ether', 'ETH'])
  tokens.nft = await deploy(erc721, ['Collectible', 'COL', 'https://example.invalid/'])
  tokens.multi = await deploy(erc1155, ['https://example.invalid/{id}'])
  tokens.swap = await deploy(greedy, [])
  await write(tokens.tka, erc20.abi, 'mint', [account0, parseEther('1000')])
  await write(tokens.fakeEth, erc20.abi, 'mint', [account0, parseEther('5')])
  await write(tokens.tkb, erc20.abi, 'mint', [tokens.swap, parseEther('1000')])
  await write(tokens.nft, erc721.abi, 'mint', [account0]) // token id 0
  await write(tokens.multi, erc1155.abi, 'mintBatch', [account0, [1n, 2n, 5n], [4n, 6n, 10n], '0x'])
  // anvil's accounts are unlocked: the account lets GreedySwap pull its TKA (as a dapp would have asked).
  await write(tokens.tka, erc20.abi, 'approve', [tokens.swap, maxUint256], account0)
}, 60_000)

afterAll(async () => {
  await anvil?.stop()
})

const wallet = (provider: Eip155ChainProvider = httpProvider(anvil.url), settings = {}) =>
  harness(
    { keys: mnemonicKeys({ mnemonic: devMnemonic }), chains: [{ chainId: anvil.chainId, provider }] },
    settings,
  )

/** The review of an eth_signTransaction (approved; nothing is broadcast, so the chain state stays). */
async function reviewOf(tx: Record<string, unknown>, settings = {}): Promise<Review> {
  const h = wallet(undefined, settings)
  await h.result<Hex>('eth_signTransaction', [{ from: account0, ...tx }])
  return h.reviews.at(-1)!
}

const groupOf = (review: Review, label: string) =>
  (review.items.find((entry) => entry.label === label) as { items: ReviewItem[] } | undefined)?.items

const call = (abi: Abi, functionName: string, args: unknown[]) =>
  encodeFunctionData({ abi, functionName, args })
const token = (address: Address, symbol: string) =>
  `${symbol} (token ${getAddress(address)}, symbol as it reports)`

describe('balance changes on anvil (eth_simulateV1)', () => {
  it('a native transfer: -1.5 ETH, nothing else', async () => {
    const review = await reviewOf({ to: recipient, value: toHex(parseEther('1.5')) })
    expect(groupOf(review, 'Balance changes (simulated)')).toEqual([
      { label: 'You send', value: '-1.5 ETH' },
      { label: 'Note', value: 'network fee not included (see Max network fee)' },
    ])
    expect(review.warnings).toEqual([])
  })

  it('an ERC-20 transfer: minus the amount, symbol and decimals read from the token', async () => {
    const review = await reviewOf({
      to: tokens.tka,
      data: call(erc20.abi, 'transfer', [recipient, parseEther('12.5')]),
    })
    expect(groupOf(review, 'Balance changes (simulated)')).toContainEqual({
      label: 'You send',
      value: `-12.5 ${token(tokens.tka, 'TKA')}`,
    })
    expect(review.warnings).toEqual([])
  })

  it('an ERC-20 approve: a caution naming spender and amount; unlimited is flagged', async () => {
    const limited = await reviewOf({
      to: tokens.tka,
      data: call(erc20.abi, 'approve', [spender, parseEther('100')]),
    })
    expect(groupOf(limited, 'Approvals (simulated)')).toEqual([
      { label: 'Grants', value: `${spender} may spend 100 ${token(tokens.tka, 'TKA')}` },
    ])
    expect(limited.warnings).toEqual([
      {
        code: 'tx.simulated_approval',
        severity: 'caution',
        message: `Lets ${spender} spend 100 ${token(tokens.tka, 'TKA')}.`,
      },
    ])
    expect(groupOf(limited, 'Balance changes (simulated)')?.[0]).toEqual({
      label: 'Balance changes',
      value: 'none for this account',
    })
    const unlimited = await reviewOf({
      to: tokens.tka,
      data: call(erc20.abi, 'approve', [spender, maxUint256]),
    })
    expect(unlimited.warnings.map((warning) => warning.code)).toEqual([
      'erc20.unlimited_approval',
      'tx.simulated_unlimited_approval',
    ])
    expect(unlimited.warnings[1]?.message).toBe(
      `Lets ${spender} spend an unlimited amount of ${token(tokens.tka, 'TKA')}.`,
    )
  })

  it('an ERC-721 transfer: the NFT leaves, by id; setApprovalForAll is a caution', async () => {
    const review = await reviewOf({
      to: tokens.nft,
      data: call(erc721.abi, 'transferFrom', [account0, recipient, 0n]),
    })
    expect(groupOf(review, 'Balance changes (simulated)')).toContainEqual({
      label: 'You send',
      value: `-NFT #0 of ${token(tokens.nft, 'COL')}`,
    })
    const all = await reviewOf({
      to: tokens.nft,
      data: call(erc721.abi, 'setApprovalForAll', [spender, true]),
    })
    expect(all.warnings.find((warning) => warning.code === 'tx.simulated_approval')?.message).toBe(
      `Lets ${spender} spend every token you hold of ${token(tokens.nft, 'COL')}.`,
    )
  })

  it('ERC-1155 single and batch transfers: per id, without a symbol (the preset has none)', async () => {
    const single = await reviewOf({
      to: tokens.multi,
      data: call(erc1155.abi, 'safeTransferFrom', [account0, recipient, 5n, 3n, '0x']),
    })
    const multi = getAddress(tokens.multi)
    expect(groupOf(single, 'Balance changes (simulated)')).toContainEqual({
      label: 'You send',
      value: `-3 of token #5 of token ${multi}`,
    })
    const batch = await reviewOf({
      to: tokens.multi,
      data: call(erc1155.abi, 'safeBatchTransferFrom', [account0, recipient, [1n, 2n], [4n, 1n], '0x']),
    })
    expect(groupOf(batch, 'Balance changes (simulated)')?.slice(0, 2)).toEqual([
      { label: 'You send', value: `-4 of token #1 of token ${multi}` },
      { label: 'You send', value: `-1 of token #2 of token ${multi}` },
    ])
  })

  it('a swap that takes more than its calldata says: the real outflow (twice the amount) shows', async () => {
    const review = await reviewOf({
      to: tokens.swap,
      data: call(greedy.abi, 'swap', [tokens.tka, parseEther('10'), tokens.tkb]),
    })
    expect(groupOf(review, 'Balance changes (simulated)')).toEqual([
      { label: 'You send', value: `-20 ${token(tokens.tka, 'TKA')}` },
      { label: 'You receive', value: `+10 ${token(tokens.tkb, 'TKB')}` },
      { label: 'Note', value: 'network fee not included (see Max network fee)' },
    ])
  })

  it('wrapping and unwrapping (WETH Deposit/Withdrawal, and the coin paid back inside the call)', async () => {
    const wrapped = await deploy(weth, [])
    const wrap = await reviewOf({
      to: wrapped,
      value: toHex(parseEther('2')),
      data: call(weth.abi, 'deposit', []),
    })
    expect(groupOf(wrap, 'Balance changes (simulated)')?.slice(0, 2)).toEqual([
      { label: 'You send', value: '-2 ETH' },
      { label: 'You receive', value: `+2 ${token(wrapped, 'WETH')}` },
    ])
    const h = wallet()
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account0, to: wrapped, value: toHex(parseEther('2')), data: call(weth.abi, 'deposit', []) },
    ])
    await minedReceipt(chain, hash)
    const unwrap = await reviewOf({ to: wrapped, data: call(weth.abi, 'withdraw', [parseEther('0.5')]) })
    expect(groupOf(unwrap, 'Balance changes (simulated)')?.slice(0, 2)).toEqual([
      { label: 'You receive', value: '+0.5 ETH' },
      { label: 'You send', value: `-0.5 ${token(wrapped, 'WETH')}` },
    ])
  })

  it('a token calling itself ETH is a caution; its address is shown beside the symbol', async () => {
    const review = await reviewOf({ to: tokens.fakeEth, data: call(erc20.abi, 'transfer', [recipient, 1n]) })
    expect(groupOf(review, 'Balance changes (simulated)')).toContainEqual({
      label: 'You send',
      value: `-0.000000000000000001 ${token(tokens.fakeEth, 'ETH')}`,
    })
    expect(review.warnings.map((warning) => warning.code)).toEqual(['tx.token_symbol_lookalike'])
  })
})

describe('hostile tokens on anvil (fixtures/HostileToken.sol)', () => {
  const transferOf = async (kind: bigint, amount = 1_000_000n) => {
    const address = await deploy(hostile, [kind])
    const review = await reviewOf({ to: address, data: call(hostile.abi, 'transfer', [recipient, amount]) })
    return { address: getAddress(address), review, changes: groupOf(review, 'Balance changes (simulated)') }
  }

  it('a 1 MiB symbol and absurd decimals: shown by address, in base units', async () => {
    const { address, changes } = await transferOf(0n)
    expect(changes?.[0]).toEqual({ label: 'You send', value: `-1000000 base units of token ${address}` })
  })

  it('a non-UTF-8, a look-alike and a multi-line symbol are not shown; decimals still apply', async () => {
    for (const kind of [1n, 2n, 3n]) {
      const { address, changes } = await transferOf(kind)
      expect(changes?.[0]).toEqual({ label: 'You send', value: `-1 token ${address}` })
    }
  })

  it('no symbol() nor decimals() at all: the address and base units', async () => {
    const { address, changes } = await transferOf(4n, 5n)
    expect(changes?.[0]).toEqual({ label: 'You send', value: `-5 base units of token ${address}` })
  })

  it('more events than the review decodes: counted, noted and cautioned', async () => {
    const address = await deploy(hostile, [4n])
    const review = await reviewOf({ to: address, data: call(hostile.abi, 'flood', [600n]) })
    expect(groupOf(review, 'Balance changes (simulated)')).toEqual([
      { label: 'You send', value: `-500 base units of token ${getAddress(address)}` },
      { label: 'Note', value: 'network fee not included (see Max network fee)' },
      { label: 'Note', value: '100 more events not decoded (the review decodes 500)' },
    ])
    expect(review.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['tx.simulation_incomplete', 'caution'],
    ])
  })
})

describe('reverts on anvil', () => {
  const reverting: Record<string, [functionName: string, args: unknown[], reason: string]> = {
    reason: ['failWithReason', [], 'swap is closed'],
    custom: [
      'failWithCustomError',
      [],
      `custom error ${toFunctionSelector('Nope(uint256)')} with 32 bytes of arguments`,
    ],
    panic: ['failWithPanic', [0n], 'Panic(0x12): division or modulo by zero'],
  }

  for (const [kind, [functionName, args, reason]] of Object.entries(reverting)) {
    it(`${kind}: refused by default as a danger warning with the reason, signed when the policy allows it`, async () => {
      const tx = { to: tokens.swap, data: call(greedy.abi, functionName, [...args]), gas: '0x30000' }
      const h = wallet()
      const refused = await h.call('eth_signTransaction', [{ from: account0, ...tx }])
      expect(errorOf(refused)).toEqual({
        code: -32602,
        message: 'Refused by wallet policy.',
        data: {
          rule: 'tx.simulation_reverted',
          reason: `The transaction reverts when simulated (${reason}): it would fail and still cost its network fee.`,
        },
      })
      expect(h.reviews).toEqual([])
      const review = await reviewOf(tx, { allowDangerous: ['tx.simulation_reverted'] })
      expect(review.warnings).toContainEqual(
        expect.objectContaining({ code: 'tx.simulation_reverted', severity: 'danger' }),
      )
      expect(review.items).toContainEqual({ label: 'Simulation', value: `reverts: ${reason}` })
    })
  }

  it('without a dapp gas limit a revert cannot be estimated: -32603 with the node reason, as before', async () => {
    const h = wallet()
    const response = await h.call('eth_sendTransaction', [
      { from: account0, to: tokens.swap, data: call(greedy.abi, 'failWithReason', []) },
    ])
    expect(errorOf(response)).toMatchObject({
      code: -32603,
      data: { reason: 'execution reverted: swap is closed' },
    })
  })
})

/** anvil behind a provider that answers eth_simulateV1 as `simulateV1` says. */
function provider(
  simulateV1: (args: { method: string; params?: unknown }) => Promise<unknown>,
): Eip155ChainProvider {
  const node = httpProvider(anvil.url)
  return { request: (args) => (args.method === 'eth_simulateV1' ? simulateV1(args) : node.request(args)) }
}

describe('nodes without eth_simulateV1, and simulations that cannot run', () => {
  const methodNotFound = async () => {
    throw Object.assign(new Error('the method eth_simulateV1 does not exist/is not available'), {
      code: -32601,
    })
  }

  it('fallback to eth_call: a success says balance changes are unavailable (caution)', async () => {
    const h = wallet(provider(methodNotFound))
    await h.result<Hex>('eth_signTransaction', [{ from: account0, to: recipient, value: '0x1' }])
    const review = h.reviews.at(-1)!
    expect(review.items).toContainEqual({
      label: 'Simulation',
      value: 'succeeds (eth_call); balance changes unavailable: the node lacks eth_simulateV1',
    })
    expect(review.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['tx.balance_changes_unavailable', 'caution'],
    ])
  })

  it('fallback to eth_call still finds a revert, with its reason', async () => {
    const h = wallet(provider(methodNotFound), { allowDangerous: ['tx.simulation_reverted'] })
    await h.result<Hex>('eth_signTransaction', [
      { from: account0, to: tokens.swap, data: call(greedy.abi, 'failWithReason', []), gas: '0x30000' },
    ])
    expect(h.reviews.at(-1)!.items).toContainEqual({ label: 'Simulation', value: 'reverts: swap is closed' })
  })

  it('a node that fails the simulation: a caution saying why; signing goes on', async () => {
    const h = wallet(
      provider(async () => {
        throw Object.assign(new Error('upstream timeout'), { code: -32000 })
      }),
    )
    await h.result<Hex>('eth_signTransaction', [{ from: account0, to: recipient, value: '0x1' }])
    expect(h.reviews.at(-1)!.warnings).toEqual([
      {
        code: 'tx.simulation_unavailable',
        severity: 'caution',
        message:
          'The transaction could not be simulated (eth_simulateV1 failed: upstream timeout); what it does to your balances is not shown.',
      },
    ])
  })

  it('a revert found by eth_call stays a danger when the simulation itself fails', async () => {
    const failing = provider(async () => {
      throw Object.assign(new Error('invalid params'), { code: -32602 })
    })
    const tx = {
      from: account0,
      to: tokens.swap,
      data: call(greedy.abi, 'failWithReason', []),
      gas: '0x30000',
    }
    expect(errorOf(await wallet(failing).call('eth_signTransaction', [tx]))).toMatchObject({
      code: -32602,
      data: { rule: 'tx.simulation_reverted' },
    })
    const allowing = wallet(failing, { allowDangerous: ['tx.simulation_reverted'] })
    await allowing.result<Hex>('eth_signTransaction', [tx])
    expect(allowing.reviews.at(-1)!.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['tx.simulation_unavailable', 'caution'],
      ['tx.simulation_reverted', 'danger'],
    ])
    expect(allowing.reviews.at(-1)!.warnings[1]?.message).toContain('(swap is closed)')
  })

  it('a node that never answers the simulation: bounded by timeoutMs, then a caution', async () => {
    const h = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic }),
      chains: [{ chainId: anvil.chainId, provider: provider(() => new Promise(() => {})) }],
      simulation: { timeoutMs: 300 },
    })
    await h.result<Hex>('eth_signTransaction', [{ from: account0, to: recipient, value: '0x1' }])
    expect(h.reviews.at(-1)!.items).toContainEqual({
      label: 'Simulation',
      value: 'unavailable: the node did not answer within 300 ms',
    })
  })

  it('simulation: false, or no provider: no simulation and no warning', async () => {
    const off = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic }),
      chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      simulation: false,
    })
    await off.result<Hex>('eth_signTransaction', [{ from: account0, to: recipient, value: '0x1' }])
    const signingOnly = harness({ keys: mnemonicKeys({ mnemonic: devMnemonic }), chains: [anvil.chainId] })
    await signingOnly.result<Hex>('eth_signTransaction', [
      { from: account0, to: recipient, value: '0x1', gas: '0x5208', gasPrice: '0x1', nonce: '0x0' },
    ])
    for (const review of [off.reviews[0]!, signingOnly.reviews[0]!]) {
      expect(review.items.map((entry) => entry.label)).not.toContain('Simulation')
      expect(review.items.map((entry) => entry.label)).not.toContain('Balance changes (simulated)')
      expect(review.warnings).toEqual([])
    }
  })

  it('a viem client as the provider: the same changes, and the eth_call fallback reads viem errors', async () => {
    const client = createPublicClient({ transport: http(anvil.url) })
    const data = call(greedy.abi, 'swap', [tokens.tka, parseEther('1'), tokens.tkb])
    const h = wallet(client)
    await h.result<Hex>('eth_signTransaction', [{ from: account0, to: tokens.swap, data }])
    expect(groupOf(h.reviews.at(-1)!, 'Balance changes (simulated)')?.slice(0, 2)).toEqual([
      { label: 'You send', value: `-2 ${token(tokens.tka, 'TKA')}` },
      { label: 'You receive', value: `+1 ${token(tokens.tkb, 'TKB')}` },
    ])
    const withoutSimulateV1: Eip155ChainProvider = {
      request: (args) =>
        args.method === 'eth_simulateV1'
          ? client.request({ method: 'eth_simulateV2' as 'eth_call', params: [] as never })
          : client.request(args as Parameters<typeof client.request>[0]),
    }
    const fallback = wallet(withoutSimulateV1, { allowDangerous: ['tx.simulation_reverted'] })
    await fallback.result<Hex>('eth_signTransaction', [
      { from: account0, to: tokens.swap, data: call(greedy.abi, 'failWithPanic', [0n]), gas: '0x30000' },
    ])
    expect(fallback.reviews.at(-1)!.items).toContainEqual({
      label: 'Simulation',
      value: 'reverts: Panic(0x12): division or modulo by zero',
    })
  })

  it('eth_sendTransaction gets the same simulation and still broadcasts once', async () => {
    const h = wallet()
    const hash = await h.result<Hex>('eth_sendTransaction', [
      { from: account0, to: tokens.tka, data: call(erc20.abi, 'transfer', [recipient, parseEther('1')]) },
    ])
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect(groupOf(h.reviews[0]!, 'Balance changes (simulated)')).toContainEqual({
      label: 'You send',
      value: `-1 ${token(tokens.tka, 'TKA')}`,
    })
  })
})
