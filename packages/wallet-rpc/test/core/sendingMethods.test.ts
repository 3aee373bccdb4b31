import { describe, expect, it } from 'vitest'
import { BIP122_MAINNET, bip122, hdKeys } from '../../src/bip122/index.js'
import type { Namespace } from '../../src/core/namespace.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { solana, solanaKeys, solanaMainnet } from '../../src/solana/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

/**
 * Every method that broadcasts goes through the request journal: it records its signed bytes before sending
 * (`effects.signed`) and can send them again (`sends.resend`). This list is the one place that names them; a
 * method that sends and is missing here (or has no `sends`) fails.
 */
const sendingMethods: Record<string, readonly string[]> = {
  bip122: ['sendTransfer', 'signPsbt'],
  ton: ['ton_sendMessage'],
  eip155: ['eth_sendRawTransaction', 'eth_sendTransaction', 'wallet_sendCalls'],
  solana: ['solana_signAndSendTransaction'],
}

describe('sending methods and the request journal', () => {
  it('each sending method, and only those, can resend what it recorded', () => {
    const namespaces: Namespace[] = [
      bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_MAINNET]: {} } }),
      ton({ keys: tonKeys.fromSecretKey(new Uint8Array(64).fill(1)) }),
      eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
      solana({ keys: solanaKeys.fromMnemonic(mnemonic), chains: [solanaMainnet] }),
    ]
    for (const namespace of namespaces) {
      const resending = Object.entries(namespace.methods)
        .filter(([, method]) => method.sends !== undefined)
        .map(([name]) => name)
        .sort()
      expect([namespace.name, resending]).toEqual([namespace.name, sendingMethods[namespace.name]])
    }
  })
})
