// The background service worker of a Manifest V3 wallet extension: a WalletConnect wallet. `@reown/walletkit`
// (on `@walletconnect/core`) talks to dapps through the WalletConnect relay; `attachWalletKit` from
// 'wallet-rpc/walletkit' answers their session proposals and requests with one wallet-rpc wallet (bip122,
// eip155, solana, ton). The extension's own pages (popup.html) drive it with chrome.runtime messages:
// `{ type: 'pair', uri }` with the dapp's `wc:` URI, `{ type: 'approve', method }` for the user's one-shot yes.
// A dapp's proposal may carry a sign-in (one-click auth, ton_proof) and a payment (walletPay): approving the
// connection offers both, and each is then signed or paid through the wallet's own method and its approval.
import './polyfills.js'
import { WalletKit } from '@reown/walletkit'
import { Core } from '@walletconnect/core'
import { createWalletRpc } from 'wallet-rpc'
import { bip122, hdKeys } from 'wallet-rpc/bip122'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { solana, solanaKeys } from 'wallet-rpc/solana'
import { ton, tonKeys } from 'wallet-rpc/ton'
import { attachWalletKit } from 'wallet-rpc/walletkit'

// Build-time settings (`npm run build` reads them from the environment, see build.mjs). PLACEHOLDER: a real
// wallet builds with its own project id from dashboard.reown.com; WalletConnect's relay refuses this one.
const projectId = typeof WALLETCONNECT_PROJECT_ID === 'string' ? WALLETCONNECT_PROJECT_ID : 'YOUR_PROJECT_ID'
const relayUrl =
  typeof WALLETCONNECT_RELAY_URL === 'string' ? WALLETCONNECT_RELAY_URL : 'wss://relay.walletconnect.org'
// The Ethereum chain and your node or RPC provider for it. Without a URL the wallet signs only: a dapp's
// eth_sendTransaction, and a payment at connect (walletPay), are refused.
const ethereumChainId = typeof ETHEREUM_CHAIN_ID === 'string' ? Number(ETHEREUM_CHAIN_ID) : 1
const ethereumRpcUrl = typeof ETHEREUM_RPC_URL === 'string' ? ETHEREUM_RPC_URL : undefined
// The `danger` warning codes your confirmation UI lets the user approve (comma-separated); none by default, so
// each is refused unasked. E.g. `siwe.origin_unverified`: a sign-in at connect whose origin the Verify API did
// not confirm (its server unreachable, or a relay without one) is then asked instead of refused.
const allowDangerous = typeof ALLOW_DANGEROUS === 'string' ? ALLOW_DANGEROUS.split(',').filter(Boolean) : []

// DEMO ONLY: a real wallet decrypts the user's secret from its vault (chrome.storage + a password) here.
const demoMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const demoTonSeed = new Uint8Array(32).fill(7)

/**
 * The user's answers. A real wallet opens its confirmation popup (chrome.windows.create), SHOWS `review` (what
 * is signed, for whom, what it costs) and resolves with the user's choice for that one request. This example
 * keeps a list of one-shot approvals instead: each `{ type: 'approve', method }` from the extension's own pages
 * answers yes to ONE later request of that method (or 'session_proposal': one connection) and is consumed by
 * it; without a fresh one the next request is rejected (5000; 4001 on eip155). The list lives in chrome.storage.session, which
 * outlives the worker (not the browser): a request that arrives while the worker is stopped still finds its
 * approval when the worker starts again. Never call chrome.storage.session.setAccessLevel(
 * 'TRUSTED_AND_UNTRUSTED_CONTEXTS'): content scripts, which web pages drive, could then write approvals.
 */
const approvedMethods = async () => (await chrome.storage.session.get('approved')).approved ?? []
// Each read-modify-write of the list runs after the previous one: two concurrent messages lose no approval,
// and two concurrent requests cannot both consume the same one.
let queue = Promise.resolve()
const serially = (step) => {
  queue = queue.then(step, step)
  return queue
}
const grant = (method) =>
  serially(async () => chrome.storage.session.set({ approved: [...(await approvedMethods()), method] }))
const take = (method) =>
  serially(async () => {
    const approved = await approvedMethods()
    const index = approved.indexOf(method)
    if (index === -1) return false
    approved.splice(index, 1)
    await chrome.storage.session.set({ approved })
    return true
  })
// DEMO ONLY: `review` is what a real wallet shows in its popup; here only its method is matched.
const approve = (review) => take(review.method)
// DEMO ONLY: a real wallet shows `proposal` — the dapp, the accounts shared, and `proposal.requests`: each
// sign-in (its statement, what it proves, its warnings) and the payment (amount, recipient, expiry) — and may
// connect without them: `{ authentication: false, walletPay: false }`. `true` offers both; each is then still
// signed or paid through `approve` (here: a `personal_sign` / `eth_sendTransaction` approval).
const approveSession = (_proposal) => take('session_proposal')

// The worker is stopped when idle and started again by the next event: everything is rebuilt here, and
// WalletKit restores its pairings, sessions and keys from the IndexedDB storage @walletconnect/core uses.
async function start() {
  const wallet = createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic: demoMnemonic }) }),
      eip155({
        keys: mnemonicKeys({ mnemonic: demoMnemonic }),
        chains: [
          ethereumRpcUrl === undefined
            ? ethereumChainId
            : { chainId: ethereumChainId, provider: httpProvider(ethereumRpcUrl) },
        ],
      }),
      solana({ keys: solanaKeys.fromMnemonic(demoMnemonic) }),
      ton({ keys: await tonKeys.fromSecretKey(demoTonSeed) }),
    ],
    approve,
    policy: { allowDangerous },
  })
  const walletKit = await WalletKit.init({
    core: new Core({ projectId, relayUrl, telemetryEnabled: false }),
    metadata: {
      name: 'wallet-rpc example wallet',
      description: 'A Manifest V3 wallet extension built on wallet-rpc',
      url: 'https://wallet.example', // your wallet's site: dapps show it
      icons: [],
    },
  })
  const errors = []
  attachWalletKit(walletKit, wallet, { approveSession, onError: (error) => errors.push(String(error)) })
  return { wallet, walletKit, errors }
}
/** The started wallet; a failed start (relay unreachable) is forgotten, so the next event tries again. */
let started
const ready = () => {
  started ??= start().catch((error) => {
    started = undefined
    throw error
  })
  return started
}
// Logs the message only: an error never carries the keys, but a logged object could carry more than needed.
const logError = (what) => (error) => console.error(what, error instanceof Error ? error.message : String(error))
const startFailed = logError('the wallet did not start (the next event retries):')
ready().catch(startFailed)

/** The messages the extension's pages send; each answers a JSON-serialisable value. */
async function onMessage(message) {
  const { walletKit, errors } = await ready()
  switch (message?.type) {
    case 'pair':
      await walletKit.pair({ uri: message.uri })
      return { ok: true }
    case 'approve':
      if (typeof message.method !== 'string') return { error: 'approve needs a method (a string)' }
      await grant(message.method)
      return { ok: true }
    case 'sessions':
      return Object.values(walletKit.getActiveSessions()).map(({ topic, peer, namespaces }) => ({
        topic,
        peer: peer.metadata,
        namespaces,
      }))
    case 'errors':
      return errors
    default:
      return { error: 'unknown message' }
  }
}

// Chrome stops the worker after 30 s without events, closing its relay socket, and nothing on the relay can
// start it again: a request sent meanwhile waits at the relay for the next event. An alarm every 30 s (Chrome's
// shortest period) is one: the worker starts, WalletKit reconnects and receives what waited. Listeners are
// registered at the top level, so the event that started the worker reaches them.
const relayAlarm = 'walletconnect-relay'
// Any alarm starts the wallet (the relay alarm, or one a page sets to wake the worker).
chrome.alarms.onAlarm.addListener(() => ready().catch(startFailed))
chrome.alarms
  .get(relayAlarm)
  .then((alarm) => alarm ?? chrome.alarms.create(relayAlarm, { periodInMinutes: 0.5 }))
  .catch(logError('could not set the relay alarm:'))

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only the extension's own pages may pair or approve: never a content script, which a web page can drive.
  const fromOwnPage = sender.id === chrome.runtime.id && sender.url?.startsWith(chrome.runtime.getURL('/'))
  if (!fromOwnPage) return false
  onMessage(message).then(sendResponse, (error) => sendResponse({ error: String(error) }))
  return true // answered asynchronously
})
