import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
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
 * (`effects.signed`) and can send them again or look them up (`sends`). This list names them; the source check
 * below finds every place that broadcasts, so a new one that skips the journal fails.
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

  it('every broadcast in the library is in a method that records its bytes first, or in the code that sends them again', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url))
    // Calls that put bytes on a chain: each chain's broadcast, and the helpers wrapping them.
    const broadcast = /\.sendRawTransaction\(|\bbroadcastOnce\(|\.sendBoc\(|\bsendChecked\(|provider\.send\(/
    // Where those are defined, and where the journal's recorded bytes are sent again.
    const helpers = ['bip122/transaction/broadcast.ts', 'eip155/provider.ts', 'eip155/transaction/resend.ts']
    const files = (readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !file.startsWith('cli/') && !file.startsWith('conformance/'))
      .map((file) => join(src, file))
    const broadcasting = files
      .filter((file) => broadcast.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file))
      .filter((file) => !helpers.includes(file))
      .sort()
    expect(broadcasting).toEqual(
      Object.entries(sendingMethods)
        .flatMap(([name, methods]) => methods.map((method) => `${name}/methods/${method}.ts`))
        .sort(),
    )
    for (const file of broadcasting) {
      const text = readFileSync(join(src, file), 'utf8')
      expect([file, text.includes('await journal.signed(')]).toEqual([file, true])
      expect([file, /\bsends: /.test(text)]).toEqual([file, true])
    }
  })
})
