import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import type UniversalProvider from '@walletconnect/universal-provider'
import { BrowserProvider, isError } from 'ethers'
import { BaseError, createWalletClient, custom, defineChain, type Hex, UserRejectedRequestError } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIP122_MAINNET, bip122, hdKeys } from '../../src/bip122/index.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import { type LocalRelay, startLocalRelay } from '../walletkit/localRelay.js'
import { connectOverRelay, installedVersion, type RelaySession } from './dappSession.js'

/**
 * A user's refusal as the two dapp libraries see it, over the path a dapp uses: its real UniversalProvider
 * through the local relay to a real WalletKit with `attachWalletKit`, anvil behind the wallet, and a user who
 * says no to everything. On eip155 the wallet answers EIP-1193's 4001, which ethers v6 turns into
 * `ACTION_REJECTED` (it turns WalletConnect's 5000 into `UNKNOWN_ERROR`) and viem into
 * `UserRejectedRequestError`; bip122 keeps WalletConnect's 5000.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const btcMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const recipient = '0x000000000000000000000000000000000000dEaD'

let relay: LocalRelay
let anvil: AnvilInstance
let wallet: WalletRpc
let connected: RelaySession
let provider: UniversalProvider
let account: Hex
let btcAccount: string
const reviews: Review[] = []

beforeAll(async () => {
  ;[relay, anvil] = await Promise.all([startLocalRelay(), startAnvil()])
  wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      }),
      bip122({ keys: hdKeys({ mnemonic: btcMnemonic }), chains: { [BIP122_MAINNET]: {} } }),
    ],
    approve: (review) => {
      reviews.push(review)
      return false
    },
  })
  connected = await connectOverRelay(
    relay,
    wallet,
    {
      eip155: {
        chains: [`eip155:${anvil.chainId}`],
        methods: ['personal_sign', 'eth_sendTransaction', 'eth_signTypedData_v4'],
        events: ['chainChanged', 'accountsChanged'],
        rpcMap: { [anvil.chainId]: anvil.url },
      },
      bip122: { chains: [BIP122_MAINNET], methods: ['signMessage'], events: [] },
    },
    { dappName: 'refusal dapp' },
  )
  provider = connected.provider
  const { session } = connected
  const accountOf = (namespace: string) => session.namespaces[namespace]!.accounts[0]!.split(':')[2]!
  account = accountOf('eip155') as Hex
  btcAccount = accountOf('bip122')
}, 120_000)

afterAll(async () => {
  await connected?.close()
  await wallet?.close()
  await Promise.all([relay?.close(), anvil?.stop()])
})

/** What a promise rejected with (the test fails if it resolved). */
async function refusalOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  )
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.resolved)}`)
  return outcome.error
}

/** The refusal asked the user once and reached the dapp as `expected` did. */
async function refused(promise: Promise<unknown>, method: string): Promise<unknown> {
  const asked = reviews.length
  const error = await refusalOf(promise)
  expect(reviews.slice(asked).map((review) => review.method)).toEqual([method])
  return error
}

describe(`one refusal, as ethers ${installedVersion('ethers')} and viem ${installedVersion('viem')} read it over WalletConnect`, () => {
  it('the answer itself: EIP-1193 4001 on eip155', async () => {
    const error = await refused(
      provider.request({ method: 'personal_sign', params: ['0x6869', account] }),
      'personal_sign',
    )
    expect(error).toMatchObject({ code: 4001, message: 'User denied the request.' })
  })

  it("ethers v6: ACTION_REJECTED for a message and a transaction (BrowserProvider over the dapp's provider)", async () => {
    const signer = await new BrowserProvider(provider).getSigner(account)
    const message = await refused(signer.signMessage('hello'), 'personal_sign')
    expect(isError(message, 'ACTION_REJECTED')).toBe(true)
    expect(message).toMatchObject({ code: 'ACTION_REJECTED', action: 'signMessage', reason: 'rejected' })
    const transaction = await refused(
      signer.sendTransaction({ to: recipient, value: 1n }),
      'eth_sendTransaction',
    )
    expect(transaction).toMatchObject({ code: 'ACTION_REJECTED', action: 'sendTransaction' })
  })

  it('viem: UserRejectedRequestError for the same message and transaction', async () => {
    const client = createWalletClient({
      account,
      chain: defineChain({
        id: anvil.chainId,
        name: 'Anvil',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [anvil.url] } },
      }),
      transport: custom(provider),
    })
    const rejection = (error: unknown) =>
      error instanceof BaseError ? error.walk((cause) => cause instanceof UserRejectedRequestError) : null
    const message = await refused(client.signMessage({ message: 'hello' }), 'personal_sign')
    expect(rejection(message)).toBeInstanceOf(UserRejectedRequestError)
    const transaction = await refused(
      client.sendTransaction({ to: recipient, value: 1n }),
      'eth_sendTransaction',
    )
    expect(rejection(transaction)).toBeInstanceOf(UserRejectedRequestError)
  })

  it("bip122 keeps WalletConnect's 5000", async () => {
    const error = await refused(
      connected.client.request({
        topic: provider.session!.topic,
        chainId: BIP122_MAINNET,
        request: { method: 'signMessage', params: { account: btcAccount, message: 'hello' } },
      }),
      'signMessage',
    )
    expect(error).toMatchObject({ code: 5000, message: 'User rejected.' })
  })
})
