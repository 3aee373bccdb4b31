import { recoverPersonalSignature } from '@metamask/eth-sig-util'
import { WalletKit } from '@reown/walletkit'
import { SignClient } from '@walletconnect/sign-client'
import type { SessionTypes, SignClientTypes } from '@walletconnect/types'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BIP122_MAINNET, bip122, hdKeys } from '../../src/bip122/index.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import {
  attachWalletKit,
  type SessionProposalReview,
  type WalletKitAdapter,
} from '../../src/walletkit/index.js'
import { closeSdkClients, type LocalRelay, relayCore, startLocalRelay } from './localRelay.js'

/**
 * The adapter between the real SDKs: a dapp's `SignClient` and the wallet's `WalletKit` (both with the
 * real @walletconnect/core, crypto and sign-client engine) talking through an in-process relay on
 * 127.0.0.1. What the dapp sees here is what a dapp sees in production, including the SDK's own
 * validation and error formatting.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
// Spec vectors, not our output: BIP-84 m/84'/0'/0'/0/0 and BIP-44 m/44'/60'/0'/0/0 of the mnemonic above.
const bitcoinAccount = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
const ethereumAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
const dappUrl = 'https://app.example.com'

let relay: LocalRelay
let wallet: WalletRpc
let walletKit: InstanceType<typeof WalletKit>
let dapp: InstanceType<typeof SignClient>
let adapter: WalletKitAdapter
let session: SessionTypes.Struct
let firstEvent: SignClientTypes.EventArguments['session_event']
let userSays = true
let clockSkewMs = 0
const reviews: Review[] = []
const proposals: SessionProposalReview[] = []
const adapterErrors = vi.fn()

beforeAll(async () => {
  relay = await startLocalRelay()
  wallet = createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_MAINNET]: {} } }),
      eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
    ],
    approve: (review) => {
      reviews.push(review)
      return userSays
    },
  })
  walletKit = await WalletKit.init({
    core: relayCore(relay, 'wallet'),
    metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
  })
  adapter = attachWalletKit(walletKit, wallet, {
    approveSession: (proposal) => {
      proposals.push(proposal)
      return true
    },
    onError: adapterErrors,
    clock: () => Date.now() + clockSkewMs,
  })
  dapp = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: 'Example dapp', description: '', url: dappUrl, icons: [] },
    logger: 'silent',
  })
  const eventArrived = new Promise<SignClientTypes.EventArguments['session_event']>((resolve) =>
    dapp.once('session_event', resolve),
  )
  const { uri, approval } = await dapp.connect({
    optionalNamespaces: {
      bip122: {
        chains: [BIP122_MAINNET],
        methods: ['getAccountAddresses', 'signMessage', 'sendTransfer', 'signPsbt'],
        events: ['bip122_addressesChanged'],
      },
      eip155: { chains: ['eip155:1'], methods: ['personal_sign'], events: ['accountsChanged'] },
    },
  })
  if (!uri) throw new Error('SignClient.connect gave no pairing uri')
  await walletKit.pair({ uri })
  session = await approval()
  firstEvent = await eventArrived
})

afterAll(async () => {
  adapter?.detach()
  await wallet?.close()
  await closeSdkClients([dapp, walletKit])
  await relay?.close()
})

const request = <T>(chainId: string, method: string, params: unknown) =>
  dapp.request<T>({ topic: session.topic, chainId, request: { method, params } })

describe('the real WalletKit and a real dapp SignClient', () => {
  it('settles a session with the account id, the BIP-44 address, methods, events and properties', () => {
    expect(proposals).toHaveLength(1)
    expect(proposals[0]?.origin).toBe(dappUrl)
    expect(session.namespaces.bip122?.accounts).toEqual([`${BIP122_MAINNET}:${bitcoinAccount}`])
    expect(session.namespaces.eip155?.accounts.map((account) => account.toLowerCase())).toEqual([
      `eip155:1:${ethereumAccount.toLowerCase()}`,
    ])
    expect(session.namespaces.bip122?.events).toEqual(['bip122_addressesChanged'])
    expect(session.namespaces.eip155?.methods).toEqual(['personal_sign'])
    const listed = JSON.parse(session.sessionProperties?.bip122_getAccountAddresses ?? 'null')
    expect(listed[0].address).toBe(bitcoinAccount)
  })

  it('delivers bip122_addressesChanged to the dapp right after approval', () => {
    expect(firstEvent.topic).toBe(session.topic)
    expect(firstEvent.params.chainId).toBe(BIP122_MAINNET)
    expect(firstEvent.params.event.name).toBe('bip122_addressesChanged')
    expect(firstEvent.params.event.data).toEqual(
      JSON.parse(session.sessionProperties?.bip122_getAccountAddresses ?? ''),
    )
  })

  it('answers getAccountAddresses without a review', async () => {
    const before = reviews.length
    const addresses = await request<Array<{ address: string }>>(BIP122_MAINNET, 'getAccountAddresses', {
      account: bitcoinAccount,
    })
    expect(addresses[0]?.address).toBe(bitcoinAccount)
    expect(reviews).toHaveLength(before)
  })

  it('answers requests sent together, through the SDK request queue, each once', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        request<Array<{ address: string }>>(BIP122_MAINNET, 'getAccountAddresses', {
          account: bitcoinAccount,
        }),
      ),
    )
    expect(answers.map((addresses) => addresses[0]?.address)).toEqual([
      bitcoinAccount,
      bitcoinAccount,
      bitcoinAccount,
    ])
  })

  it('answers personal_sign with a signature an independent implementation recovers', async () => {
    const message = '0x48656c6c6f2c2057616c6c6574436f6e6e656374'
    const signature = await request<string>('eip155:1', 'personal_sign', [message, ethereumAccount])
    expect(recoverPersonalSignature({ data: message, signature }).toLowerCase()).toBe(
      ethereumAccount.toLowerCase(),
    )
    expect(reviews.at(-1)).toMatchObject({ method: 'personal_sign', origin: dappUrl })
  })

  it("reaches the dapp with EIP-1193's 4001 when the user declines an eip155 request", async () => {
    userSays = false
    try {
      await expect(request('eip155:1', 'personal_sign', ['0x6e6f', ethereumAccount])).rejects.toEqual({
        code: 4001,
        message: 'User denied the request.',
      })
    } finally {
      userSays = true
    }
  })

  it('reaches the dapp with 8000 for a request expired by the adapter clock, before any review', async () => {
    const before = reviews.length
    clockSkewMs = 8 * 24 * 3600 * 1000
    try {
      await expect(request('eip155:1', 'personal_sign', ['0x6e6f', ethereumAccount])).rejects.toEqual({
        code: 8000,
        message: 'Request expired.',
      })
    } finally {
      clockSkewMs = 0
    }
    expect(reviews).toHaveLength(before)
  })

  it('keeps code 4100 and its data; the SDK reduces a -32602 to its standard message', async () => {
    await expect(
      request(BIP122_MAINNET, 'getAccountAddresses', { account: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2' }),
    ).rejects.toMatchObject({ code: 4100, data: { account: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2' } })
    await expect(request(BIP122_MAINNET, 'signMessage', { account: bitcoinAccount })).rejects.toEqual({
      code: -32602,
      message: 'Invalid params',
    })
  })

  it('reported no SDK error along the way', () => {
    expect(adapterErrors).not.toHaveBeenCalled()
    expect(relay.methods).toEqual(
      expect.arrayContaining(['wc_proposeSession', 'wc_approveSession', 'irn_publish']),
    )
  })
})
