import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { modulesLoadedBy } from '../setup/modulesLoaded.js'

/**
 * `wallet-rpc/walletkit` must not load any namespace or its chain libraries: a wallet that only serves
 * eip155 should not pay for bitcoinjs-lib or @ton/core by plugging into WalletKit. Measured in a fresh
 * process from the sources (tsx), recording every ESM resolution and every CommonJS module loaded
 * (@walletconnect/utils ships CommonJS for Node).
 */
const root = fileURLToPath(new URL('../..', import.meta.url))

const namespaceCode = ['/src/bip122/', '/src/ton/', '/src/eip155/', '/src/pay/', '/src/verify/']
const chainLibraries = [
  '/node_modules/bitcoinjs-lib/',
  '/node_modules/bip32/',
  '/node_modules/bip39/',
  '/node_modules/bip322-js/',
  '/node_modules/@scure/btc-signer/',
  '/node_modules/tiny-secp256k1/',
  '/node_modules/@bitcoinerlab/secp256k1/',
  '/node_modules/coinselect/',
  '/node_modules/@ton/core/',
  '/node_modules/@ton/crypto/',
  '/node_modules/tweetnacl/',
  '/node_modules/viem/',
  '/node_modules/@reown/walletkit/',
]

describe('wallet-rpc/walletkit entry', () => {
  it('loads @walletconnect/utils and no namespace, chain library or the WalletKit client itself', () => {
    const loaded = modulesLoadedBy(
      `const api = await import(${JSON.stringify(`${root}src/walletkit/index.ts`)}); if (typeof api.attachWalletKit !== 'function') process.exit(3)`,
      { sources: true },
    )
    expect(loaded.some((url) => url.includes('/node_modules/@walletconnect/utils/'))).toBe(true)
    for (const fragment of [...namespaceCode, ...chainLibraries]) {
      expect(loaded.filter((url) => url.includes(fragment))).toEqual([])
    }
  })
})
