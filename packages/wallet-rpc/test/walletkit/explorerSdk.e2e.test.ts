import { WalletKit } from '@reown/walletkit'
import { type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import { SignClient } from '@walletconnect/sign-client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BIP122_MAINNET, bip122, hdKeys } from '../../src/bip122/index.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { createExplorerClient } from '../../src/explorer/index.js'
import {
  attachWalletKit,
  type SessionProposalReview,
  type WalletKitAdapter,
} from '../../src/walletkit/index.js'
import { closeSdkClients, type LocalRelay, relayCore, startLocalRelay } from './localRelay.js'

/**
 * The explorer option between the real SDKs: dapps' `SignClient`s propose to the wallet's real `WalletKit`
 * through an in-process relay, and the adapter looks each proposer up in the sandbox's explorer (sample
 * listing: "Sandbox Swap" at https://swap.sandbox.example). The relay has no Verify server, so the SDK hands
 * the adapter no confirmed origin: the review must say the listing is found by the declared URL only.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const SWAP = { name: 'Sandbox Swap', url: 'https://swap.sandbox.example' }

let relay: LocalRelay
let sandbox: PaySandbox
let downSandbox: PaySandbox
let wallet: WalletRpc
const walletKits: Array<InstanceType<typeof WalletKit>> = []
const dapps: Array<InstanceType<typeof SignClient>> = []
const adapters: WalletKitAdapter[] = []
const adapterErrors = vi.fn()

beforeAll(async () => {
  relay = await startLocalRelay()
  sandbox = await startPaySandbox()
  downSandbox = await startPaySandbox()
  await downSandbox.stop()
  wallet = createWalletRpc({
    namespaces: [bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_MAINNET]: {} } })],
    approve: () => true,
  })
})

afterAll(async () => {
  for (const adapter of adapters) adapter.detach()
  await wallet?.close()
  await closeSdkClients([...dapps, ...walletKits])
  await relay?.close()
  await sandbox?.stop()
})

/** One real proposal from a dapp with `metadata`, approved; returns the review the wallet's user saw. */
async function proposalReview(
  metadata: { name: string; url: string; icons?: string[] },
  explorerUrl = sandbox.url,
): Promise<SessionProposalReview> {
  const walletKit = await WalletKit.init({
    core: relayCore(relay, 'wallet'),
    metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
  })
  walletKits.push(walletKit)
  const reviews: SessionProposalReview[] = []
  adapters.push(
    attachWalletKit(walletKit, wallet, {
      approveSession: (review) => {
        reviews.push(review)
        return true
      },
      onError: adapterErrors,
      explorer: { client: createExplorerClient({ baseUrl: explorerUrl, projectId: 'demo' }) },
    }),
  )
  const dapp = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { description: '', icons: [], ...metadata },
    logger: 'silent',
  })
  dapps.push(dapp)
  const { uri, approval } = await dapp.connect({
    optionalNamespaces: {
      bip122: { chains: [BIP122_MAINNET], methods: ['getAccountAddresses'], events: [] },
    },
  })
  if (!uri) throw new Error('SignClient.connect gave no pairing uri')
  await walletKit.pair({ uri })
  await approval()
  expect(reviews).toHaveLength(1)
  return reviews[0]!
}

describe('explorer listing facts with the real WalletKit and real dapp SignClients', () => {
  it('a listed dapp: found by its declared URL, flagged as not confirmed by Verify; the session settles', async () => {
    const review = await proposalReview(SWAP)
    expect(review.listing).toMatchObject({
      status: 'listed',
      listing: { name: 'Sandbox Swap', homepage: SWAP.url },
      hostMatchesVerifiedOrigin: false,
    })
    expect(review.warnings.map((warning) => warning.code)).toEqual(['explorer.origin_unverified'])
  })

  it('an unlisted dapp with a name of its own: unlisted, no caution', async () => {
    const review = await proposalReview({ name: 'Fresh Dapp', url: 'https://fresh.example' })
    expect(review.listing).toEqual({ status: 'unlisted' })
    expect(review.warnings).toEqual([])
  })

  it("an impostor with a listed dapp's name, and one with its icon: unlisted, caution naming the listing", async () => {
    const byName = await proposalReview({ name: 'Sandbox Swap', url: 'https://swap-sandbox.example' })
    expect(byName.listing).toMatchObject({
      status: 'unlisted',
      impersonates: { listing: { name: 'Sandbox Swap' }, presents: ['name'] },
    })
    const byIcon = await proposalReview({
      name: 'Free Airdrop',
      url: 'https://airdrop.example',
      icons: ['https://swap.sandbox.example/favicon.png'],
    })
    expect(byIcon.listing).toMatchObject({ status: 'unlisted', impersonates: { presents: ['icon'] } })
    for (const review of [byName, byIcon]) {
      expect(review.warnings).toEqual([
        expect.objectContaining({ code: 'explorer.impostor', severity: 'caution' }),
      ])
    }
  })

  it('an explorer that is down: listing unavailable, the session still settles', async () => {
    const review = await proposalReview(SWAP, downSandbox.url)
    expect(review.listing).toMatchObject({ status: 'unavailable' })
    expect(review.warnings.map((warning) => warning.code)).toContain('explorer.unavailable')
  })

  it('reported no adapter error along the way', () => {
    expect(adapterErrors).not.toHaveBeenCalled()
  })
})
