import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { deployEip7702Executor } from '@wallet-rpc/devchains/eip7702Executor'
import type UniversalProvider from '@walletconnect/universal-provider'
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  toHex,
} from 'viem'
import { getCallsStatus, getCapabilities, sendCalls } from 'viem/actions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { type AddChainRequest, eip155, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import { minedReceipt } from '../eip155/helpers.js'
import { type LocalRelay, startLocalRelay } from '../walletkit/localRelay.js'
import { connectOverRelay, installedVersion, type RelaySession } from './dappSession.js'

/**
 * EIP-5792 as a WalletConnect dapp uses it: viem's `sendCalls`, `getCapabilities` and `getCallsStatus` over
 * the dapp's real `UniversalProvider` (what AppKit and wagmi sit on), through the local relay, to a real
 * `WalletKit` with `attachWalletKit`; behind the wallet, anvil with `--hardfork prague` and OpenZeppelin's
 * ERC-7821 executor as the EIP-7702 delegate. Then chain switching and adding as UniversalProvider does it.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const recipient = '0x000000000000000000000000000000000000dEaD'
const methods = [
  'eth_sendTransaction',
  'personal_sign',
  'wallet_getCapabilities',
  'wallet_sendCalls',
  'wallet_getCallsStatus',
  'wallet_switchEthereumChain',
  'wallet_addEthereumChain',
]

let relay: LocalRelay
let anvil: AnvilInstance
let secondAnvil: AnvilInstance
let delegate: Hex
let wallet: WalletRpc
let connected: RelaySession
let provider: UniversalProvider
let chain: PublicClient
let account: Hex
const reviews: Review[] = []
const walletErrors: unknown[] = []
const addChainAsked: AddChainRequest[] = []

beforeAll(async () => {
  ;[relay, anvil, secondAnvil] = await Promise.all([
    startLocalRelay(),
    startAnvil({ args: ['--hardfork', 'prague'] }),
    startAnvil({ chainId: 31338, args: ['--hardfork', 'prague'] }),
  ])
  delegate = await deployEip7702Executor(anvil.url)
  chain = createPublicClient({ transport: http(anvil.url) })
  wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url), eip7702: { delegate } }],
        addEthereumChain: (request) => {
          addChainAsked.push(request)
          return true
        },
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  connected = await connectOverRelay(
    relay,
    wallet,
    {
      eip155: {
        chains: [`eip155:${anvil.chainId}`],
        methods,
        events: ['chainChanged', 'accountsChanged'],
        rpcMap: { [anvil.chainId]: anvil.url },
      },
    },
    { dappName: 'EIP-5792 dapp', onError: (error) => walletErrors.push(error) },
  )
  provider = connected.provider
  account = connected.session.namespaces.eip155!.accounts[0]!.split(':')[2] as Hex
}, 120_000)

afterAll(async () => {
  await connected?.close()
  await wallet?.close()
  await Promise.all([relay?.close(), anvil?.stop(), secondAnvil?.stop()])
})

const anvilChain = () =>
  defineChain({
    id: anvil.chainId,
    name: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  })

describe(`viem ${installedVersion('viem')} EIP-5792 over @walletconnect/universal-provider ${installedVersion('@walletconnect/universal-provider')}`, () => {
  it('the session advertises atomic: ready (the first batch upgrades the account) where UniversalProvider reads it; getCapabilities answers from it', async () => {
    const session = provider.session!
    expect(session.scopedProperties?.[`eip155:${anvil.chainId}`]).toMatchObject({
      atomic: { status: 'ready' },
      [`eip155:${anvil.chainId}:${account}`]: { atomic: { status: 'ready' } },
    })
    expect(session.sessionProperties?.atomic).toBe(JSON.stringify({ status: 'ready' }))
    const walletClient = createWalletClient({ account, chain: anvilChain(), transport: custom(provider) })
    const capabilities = await getCapabilities(walletClient, { chainId: anvil.chainId })
    expect(capabilities).toMatchObject({ atomic: { status: 'ready' } })
  })

  it('sendCalls (forceAtomic): two transfers mined in ONE type-4 transaction; status success; the account is delegated', async () => {
    const walletClient = createWalletClient({ account, chain: anvilChain(), transport: custom(provider) })
    const before = await chain.getBalance({ address: recipient })
    const { id } = await sendCalls(walletClient, {
      forceAtomic: true,
      calls: [
        { to: recipient, value: 1000n },
        { to: recipient, value: 2000n },
      ],
    })
    expect(reviews.at(-1)!.method).toBe('wallet_sendCalls')
    expect(reviews.at(-1)!.title).toBe('Send 2 calls (one atomic transaction)')
    // UniversalProvider answers wallet_getCallsStatus itself from the caip345 hashes (status 100 until mined).
    let status = await getCallsStatus(walletClient, { id })
    for (let attempt = 0; status.status === 'pending' && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      status = await getCallsStatus(walletClient, { id })
    }
    expect(status).toMatchObject({ status: 'success', statusCode: 200 })
    expect(status.receipts).toHaveLength(1)
    const hash = status.receipts![0]!.transactionHash
    expect((await minedReceipt(chain, hash)).type).toBe('eip7702')
    expect((await chain.getBalance({ address: recipient })) - before).toBe(3000n)
    expect(await chain.getCode({ address: account })).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`)
    // The wallet's own status method agrees, asked as the site that sent the batch (only it may read it).
    const origin = reviews.at(-1)!.origin
    const own = await wallet.handle({
      chainId: `eip155:${anvil.chainId}`,
      request: { id: 1, jsonrpc: '2.0', method: 'wallet_getCallsStatus', params: [id] },
      ...(origin === undefined ? {} : { origin }),
    })
    expect(own).toMatchObject({ result: { status: 200, atomic: true } })
  })

  it('wallet_switchEthereumChain to a chain the wallet lacks: 4902; after wallet_addEthereumChain, the switch adds it to the session', async () => {
    const target = toHex(secondAnvil.chainId)
    await expect(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: target }] }),
    ).rejects.toMatchObject({ code: 4902 })
    await provider.request({
      method: 'wallet_addEthereumChain',
      params: [
        {
          chainId: target,
          chainName: 'Second anvil',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [secondAnvil.url],
        },
      ],
    })
    expect(addChainAsked).toMatchObject([{ chainId: secondAnvil.chainId, rpcUrl: secondAnvil.url }])
    const changed = new Promise((resolve) => provider.on('chainChanged', resolve))
    expect(
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: target }] }),
    ).toBeNull()
    await changed
    for (let attempt = 0; attempt < 100; attempt++) {
      if (provider.session?.namespaces.eip155?.accounts.includes(`eip155:${secondAnvil.chainId}:${account}`))
        break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(provider.session?.namespaces.eip155?.accounts).toContain(
      `eip155:${secondAnvil.chainId}:${account}`,
    )
    expect(await provider.request({ method: 'eth_chainId' })).toBe(secondAnvil.chainId)
    // The dapp now signs and sends on the added chain through the session.
    const hash = (await provider.request(
      { method: 'eth_sendTransaction', params: [{ from: account, to: recipient, value: '0x1' }] },
      `eip155:${secondAnvil.chainId}`,
    )) as Hex
    const second = createPublicClient({ transport: http(secondAnvil.url) })
    expect((await minedReceipt(second, hash)).status).toBe('success')
  })

  it('the wallet side reported no SDK failure', () => {
    expect(walletErrors).toEqual([])
  })
})
