import type { WalletKitTypes } from '@reown/walletkit'
import { type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import type { Verify } from '@walletconnect/types'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fixedClock } from '../../src/core/clock.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { createExplorerClient, type ExplorerClient } from '../../src/explorer/index.js'
import { hostOf } from '../../src/walletkit/explorerListing.js'
import {
  attachWalletKit,
  type ExplorerReviewOptions,
  listingFacts,
  type SessionProposalReview,
} from '../../src/walletkit/index.js'
import { fakeBitcoin, fakeEthereum, fakeTon } from './fakeNamespaces.js'
import { FakeWalletKit } from './fakeWalletKit.js'
import { appKitNamespaces, NOW_SECONDS, proposalEvent, verified } from './fixtures.js'

/**
 * The session-proposal review with the `explorer` option, against the sandbox's explorer (sample listing:
 * "Sandbox Swap" at https://swap.sandbox.example is a listed dApp): a listed dapp, an unlisted one, impostors
 * presenting a listed dapp's name, icon or URL, and an explorer that is down, slow or broken.
 */

const SWAP = {
  name: 'Sandbox Swap',
  url: 'https://swap.sandbox.example',
  id: 'bd97140bf56324f202d70834ac17b457a7156360b44bb978bf3449153363fa10',
}
const swapEntry = { id: SWAP.id, name: SWAP.name, homepage: SWAP.url, app_type: 'dapp' }

let sandbox: PaySandbox
beforeAll(async () => {
  sandbox = await startPaySandbox()
})
afterAll(() => sandbox.stop())

type Dapp = { name: string; url: string; icons?: string[] }

/** Delivers one proposal from `dapp` at `origin` and returns the review the wallet's user was shown. */
async function reviewOf(
  dapp: Dapp,
  verifyContext: Verify.Context,
  explorer: ExplorerReviewOptions | null = {
    client: createExplorerClient({ baseUrl: sandbox.url, projectId: 'demo' }),
  },
): Promise<{ review: SessionProposalReview; walletKit: FakeWalletKit; errors: unknown[] }> {
  const wallet = createWalletRpc({
    namespaces: [fakeBitcoin(), fakeEthereum().namespace, fakeTon()],
    approve: () => true,
    clock: fixedClock(NOW_SECONDS),
  })
  const walletKit = new FakeWalletKit()
  const approveSession = vi.fn((_review: SessionProposalReview) => true)
  const errors: unknown[] = []
  attachWalletKit(walletKit, wallet, {
    approveSession,
    onError: (error) => errors.push(error),
    clock: fixedClock(NOW_SECONDS),
    ...(explorer === null ? {} : { explorer }),
  })
  const event = proposalEvent({ optionalNamespaces: appKitNamespaces }, verifyContext)
  const proposal: WalletKitTypes.SessionProposal = {
    ...event,
    params: {
      ...event.params,
      proposer: {
        ...event.params.proposer,
        metadata: { description: 'a dapp', icons: [], ...dapp },
      },
    },
  }
  await walletKit.deliver('session_proposal', proposal)
  expect(approveSession).toHaveBeenCalledTimes(1)
  return { review: approveSession.mock.calls[0]![0], walletKit, errors }
}

const at = (origin: string) => verified('VALID', { origin })
const approved = (walletKit: FakeWalletKit) =>
  walletKit.calls.filter((call) => call.method === 'approveSession')

describe('session-proposal review with an explorer', () => {
  it('a listed dapp at its listed origin: listed, its name, host matches; no warning', async () => {
    const { review, walletKit } = await reviewOf(SWAP, at('https://swap.sandbox.example'))
    expect(review.listing).toEqual({ status: 'listed', listing: swapEntry, hostMatchesVerifiedOrigin: true })
    expect(review.warnings).toEqual([])
    expect(approved(walletKit)).toHaveLength(1)
  })

  it('finds it by host whatever name it gives itself, and with the default port or a trailing dot', async () => {
    const { review } = await reviewOf(
      { name: 'Swap!', url: 'https://swap.sandbox.example' },
      at('https://SWAP.sandbox.example.:443'),
    )
    expect(review.listing).toEqual({ status: 'listed', listing: swapEntry, hostMatchesVerifiedOrigin: true })
  })

  it('an unlisted dapp with a name of its own: unlisted, no caution', async () => {
    const { review, walletKit } = await reviewOf(
      { name: 'Fresh Dapp', url: 'https://fresh.example' },
      at('https://fresh.example'),
    )
    expect(review.listing).toEqual({ status: 'unlisted' })
    expect(review.warnings).toEqual([])
    expect(approved(walletKit)).toHaveLength(1)
  })

  it("an impostor using a listed dapp's name: unlisted, names the listing, caution", async () => {
    const { review } = await reviewOf(
      { name: 'Sandbox  SWAP', url: 'https://swap-sandbox.example' },
      at('https://swap-sandbox.example'),
    )
    expect(review.listing).toEqual({
      status: 'unlisted',
      impersonates: { listing: swapEntry, presents: ['name'] },
    })
    expect(review.warnings).toEqual([
      {
        code: 'explorer.impostor',
        severity: 'caution',
        message: expect.stringContaining(
          'presents the name of the listed "Sandbox Swap" (https://swap.sandbox.example)',
        ),
      },
    ])
  })

  it("an impostor presenting a listed dapp's icon or URL from another origin", async () => {
    const logo = `${sandbox.url}/v3/logo/md/bd97140b-f563-44f2-82d7-0834ac17b457?projectId=demo`
    const byLogo = await reviewOf(
      { name: 'Free Airdrop', url: 'https://airdrop.example', icons: [logo] },
      at('https://airdrop.example'),
    )
    expect(byLogo.review.listing).toEqual({
      status: 'unlisted',
      impersonates: { listing: swapEntry, presents: ['icon'] },
    })
    const hotlinked = await reviewOf(
      {
        name: 'Free Airdrop',
        url: 'https://airdrop.example',
        icons: ['https://swap.sandbox.example/favicon.png'],
      },
      at('https://airdrop.example'),
    )
    expect(hotlinked.review.listing).toMatchObject({ impersonates: { presents: ['icon'] } })
    // The declared URL is the listed one, the verified origin is not: everything the page says is copied.
    const copied = await reviewOf(
      { ...SWAP, icons: ['https://swap.sandbox.example/favicon.png'] },
      at('https://swap.sandbox.example.evil.example'),
    )
    expect(copied.review.listing).toEqual({
      status: 'unlisted',
      impersonates: { listing: swapEntry, presents: ['name', 'icon', 'url'] },
    })
    expect(copied.review.warnings.map((warning) => warning.severity)).toEqual(['caution'])
    // A caution informs; the user still decides (the proposal went to approveSession and was approved).
    expect(approved(copied.walletKit)).toHaveLength(1)
  })

  it('without a verified origin, the declared URL finds the listing but the review says it is unconfirmed', async () => {
    const noOrigin = { verified: { validation: 'UNKNOWN', verifyUrl: '' } } as unknown as Verify.Context
    const { review } = await reviewOf(SWAP, noOrigin)
    expect(review.listing).toEqual({ status: 'listed', listing: swapEntry, hostMatchesVerifiedOrigin: false })
    expect(review.warnings).toEqual([
      {
        code: 'explorer.origin_unverified',
        severity: 'caution',
        message: expect.stringContaining('no verified origin'),
      },
    ])
  })

  it('an origin Verify could not attest (UNKNOWN) is not a verified one: the SDK fills it from the dapp', async () => {
    const { review } = await reviewOf(SWAP, verified('UNKNOWN', { origin: SWAP.url }))
    expect(review.listing).toEqual({ status: 'listed', listing: swapEntry, hostMatchesVerifiedOrigin: false })
    expect(review.warnings.map((warning) => warning.code)).toEqual(['explorer.origin_unverified'])
    expect(review.originValidation).toBe('UNKNOWN')
  })

  it('without the explorer option the review has no listing and no warnings', async () => {
    const { review } = await reviewOf(SWAP, at('https://swap.sandbox.example'), null)
    expect('listing' in review).toBe(false)
    expect(review.warnings).toEqual([])
  })
})

describe('an explorer that fails never blocks the proposal', () => {
  const unavailable = (reason: RegExp) => ({ status: 'unavailable', reason: expect.stringMatching(reason) })

  it('down (connection refused): listing unavailable, proposal approved', async () => {
    const gone = await startPaySandbox()
    await gone.stop()
    const client = createExplorerClient({ baseUrl: gone.url, projectId: 'demo' })
    const { review, walletKit, errors } = await reviewOf(SWAP, at(SWAP.url), { client })
    expect(review.listing).toEqual(unavailable(/network/))
    expect(review.warnings).toEqual([
      {
        code: 'explorer.unavailable',
        severity: 'info',
        message: expect.stringMatching(/^Listing unavailable: /),
      },
    ])
    expect(approved(walletKit)).toHaveLength(1)
    expect(errors).toEqual([])
  })

  it('hanging: bounded by timeoutMs even when the client ignores its signal', async () => {
    const hanging: Pick<ExplorerClient, 'all'> = { all: () => new Promise(() => {}) }
    const { review, walletKit } = await reviewOf(SWAP, at(SWAP.url), { client: hanging, timeoutMs: 30 })
    expect(review.listing).toEqual(unavailable(/did not answer within 30 ms/))
    expect(approved(walletKit)).toHaveLength(1)
  })

  it('the signal reaches the client, which stops its request', async () => {
    let signal: AbortSignal | undefined
    const watching: Pick<ExplorerClient, 'all'> = {
      all: (_params, call) => {
        signal = call?.signal
        return new Promise(() => {})
      },
    }
    await reviewOf(SWAP, at(SWAP.url), { client: watching, timeoutMs: 10 })
    expect(signal?.aborted).toBe(true)
  })

  it('a client that throws synchronously, rejects with a non-Error, or returns garbage', async () => {
    const clients: Array<Pick<ExplorerClient, 'all'>> = [
      {
        all: () => {
          throw new Error('broken client')
        },
      },
      { all: () => Promise.reject('nope') },
      { all: async () => null as never },
    ]
    for (const client of clients) {
      const { review, walletKit } = await reviewOf(SWAP, at(SWAP.url), { client })
      expect(review.listing?.status).toBe('unavailable')
      expect(approved(walletKit)).toHaveLength(1)
    }
  })
})

describe('listing facts, directly', () => {
  it('hostOf reads http(s) hosts without the URL class', () => {
    expect(hostOf('https://Swap.Sandbox.Example/path?q#f')).toBe('swap.sandbox.example')
    expect(hostOf('https://user:pw@swap.sandbox.example:443')).toBe('swap.sandbox.example')
    expect(hostOf('http://127.0.0.1:8080/x')).toBe('127.0.0.1:8080')
    expect(hostOf('https://[::1]:8443')).toBe('[::1]:8443')
    expect(hostOf('javascript:alert(1)')).toBeUndefined()
    expect(hostOf('ftp://files.example')).toBeUndefined()
    expect(hostOf('https://')).toBeUndefined()
    expect(hostOf(undefined)).toBeUndefined()
    // Browsers read a backslash as a slash: this URL's host is evil.example, not the listed one.
    expect(hostOf('https://evil.example\\@swap.sandbox.example')).toBe('evil.example')
    expect(hostOf('https://evil.example\\swap.sandbox.example')).toBe('evil.example')
  })

  it('listed means the same scheme: a plain-http origin is not the https listing, and presents its URL', () => {
    const listing = {
      id: SWAP.id,
      name: SWAP.name,
      homepage: SWAP.url,
      app_type: 'dapp',
      image_url: {},
    } as unknown as Parameters<typeof listingFacts>[0][number]
    expect(listingFacts([listing], { name: 'Swap', url: SWAP.url }, SWAP.url)).toMatchObject({
      status: 'listed',
      hostMatchesVerifiedOrigin: true,
    })
    expect(listingFacts([listing], { name: 'Swap', url: SWAP.url }, 'http://swap.sandbox.example')).toEqual({
      status: 'unlisted',
      impersonates: { listing: swapEntry, presents: ['url'] },
    })
  })

  it('an empty name or no metadata matches nothing', () => {
    expect(listingFacts([], undefined, undefined)).toEqual({ status: 'unlisted' })
    expect(listingFacts([], { name: '', url: 42 }, 'https://x.example')).toEqual({ status: 'unlisted' })
  })
})
