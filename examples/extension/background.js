// The background service worker of a Manifest V3 wallet extension: a WalletConnect wallet. `@reown/walletkit`
// (on `@walletconnect/core`) talks to dapps through the WalletConnect relay; `attachWalletKit` from
// 'wallet-rpc/walletkit' answers their session proposals and requests with one wallet-rpc wallet (bip122,
// eip155, solana, ton). The extension's own pages (popup.html) drive it with chrome.runtime messages:
// `{ type: 'pair', uri }` with the dapp's `wc:` URI, `{ type: 'approve', method }` for the user's answers.
import './polyfills.js'
import { WalletKit } from '@reown/walletkit'
import { Core } from '@walletconnect/core'
import { createWalletRpc } from 'wallet-rpc'
import { bip122, hdKeys } from 'wallet-rpc/bip122'
import { eip155, mnemonicKeys } from 'wallet-rpc/eip155'
import { solana, solanaKeys } from 'wallet-rpc/solana'
import { ton, tonKeys } from 'wallet-rpc/ton'
import { attachWalletKit } from 'wallet-rpc/walletkit'

// Build-time settings (`npm run build` reads them from the environment, see build.mjs). PLACEHOLDER: a real
// wallet builds with its own project id from dashboard.reown.com; WalletConnect's relay refuses this one.
const projectId = typeof WALLETCONNECT_PROJECT_ID === 'string' ? WALLETCONNECT_PROJECT_ID : 'YOUR_PROJECT_ID'
const relayUrl =
  typeof WALLETCONNECT_RELAY_URL === 'string' ? WALLETCONNECT_RELAY_URL : 'wss://relay.walletconnect.org'

// DEMO ONLY: a real wallet decrypts the user's secret from its vault (chrome.storage + a password) here.
const demoMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const demoTonSeed = new Uint8Array(32).fill(7)

/**
 * The user's answers. A real wallet opens its confirmation popup (chrome.windows.create) showing the review
 * and resolves with the user's choice; this example says yes only to what a page approved beforehand with
 * `{ type: 'approve', method }` (`method` is a request's method, or 'session_proposal' to connect a dapp).
 * They live in chrome.storage.session, which outlives the worker (not the browser): a request that arrives
 * while the worker is stopped still finds them when the worker starts again.
 */
const approvedMethods = async () => (await chrome.storage.session.get('approved')).approved ?? []
const approve = async (review) => (await approvedMethods()).includes(review.method)
const approveSession = async (_proposal) => (await approvedMethods()).includes('session_proposal')

// The worker is stopped when idle and started again by the next event: everything is rebuilt here, and
// WalletKit restores its pairings, sessions and keys from the IndexedDB storage @walletconnect/core uses.
const ready = (async () => {
  const wallet = createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic: demoMnemonic }) }),
      eip155({ keys: mnemonicKeys({ mnemonic: demoMnemonic }), chains: [1] }),
      solana({ keys: solanaKeys.fromMnemonic(demoMnemonic) }),
      ton({ keys: await tonKeys.fromSecretKey(demoTonSeed) }),
    ],
    approve,
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
})()

/** The messages the extension's pages send; each answers a JSON-serialisable value. */
async function onMessage(message) {
  const { walletKit, errors } = await ready
  switch (message?.type) {
    case 'pair':
      await walletKit.pair({ uri: message.uri })
      return { ok: true }
    case 'approve':
      await chrome.storage.session.set({ approved: [...(await approvedMethods()), message.method] })
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
chrome.alarms.onAlarm.addListener(() => ready)
chrome.alarms
  .get(relayAlarm)
  .then((alarm) => alarm ?? chrome.alarms.create(relayAlarm, { periodInMinutes: 0.5 }))

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only the extension's own pages may pair or approve: never a content script, which a web page can drive.
  const fromOwnPage = sender.id === chrome.runtime.id && sender.url?.startsWith(chrome.runtime.getURL('/'))
  if (!fromOwnPage) return false
  onMessage(message).then(sendResponse, (error) => sendResponse({ error: String(error) }))
  return true // answered asynchronously
})
