// The background service worker of a Manifest V3 wallet extension. It builds one wallet-rpc wallet and
// answers every WalletConnect `session_request` with it. In a real extension `@reown/walletkit` delivers the
// events (`attachWalletKit(walletKit, wallet, …)` from 'wallet-rpc/walletkit' does the wiring); here the
// extension's own pages, and the browser test, send the same event shape through chrome.runtime messages.
import './polyfills.js'
import { createWalletRpc } from 'wallet-rpc'
import { bip122, hdKeys } from 'wallet-rpc/bip122'
import { eip155, mnemonicKeys } from 'wallet-rpc/eip155'
import { ton, tonKeys } from 'wallet-rpc/ton'

// DEMO ONLY: a real wallet decrypts the user's secret from its vault (chrome.storage + a password) here.
const demoMnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const demoTonSeed = new Uint8Array(32).fill(7)

/**
 * Asked before every signature. A real wallet opens its confirmation popup (chrome.windows.create) showing
 * `review` and resolves with the user's answer; this example refuses unless the page asked to approve.
 */
const approvals = new Map()
async function approve(review) {
  return approvals.get(review.method) === true
}

const walletReady = (async () =>
  createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic: demoMnemonic }) }),
      eip155({ keys: mnemonicKeys({ mnemonic: demoMnemonic }), chains: [1] }),
      ton({ keys: await tonKeys.fromSecretKey(demoTonSeed) }),
    ],
    approve,
  }))()

/** `{ type: 'session_request', event }` → the JSON-RPC response; `{ type: 'approve', method }` → ok. */
async function onMessage(message) {
  const wallet = await walletReady
  if (message?.type === 'session_request') return wallet.handle(message.event)
  if (message?.type === 'session_properties') return wallet.sessionProperties()
  if (message?.type === 'approve') return approvals.set(message.method, true) && { ok: true }
  return { error: 'unknown message' }
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  onMessage(message).then(sendResponse)
  return true // answered asynchronously
})
globalThis.walletRpcExample = { onMessage }
