import { afterEach, describe, expect, it, vi } from 'vitest'
import { bip122, hdKeys } from '../../src/bip122/index.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { solana, solanaKeys } from '../../src/solana/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'

/**
 * A runtime without a global the namespaces need (React Native without its polyfills) is told so when a
 * namespace is created, with the global's name and the package that provides it, never later inside a
 * request as -32603 or as a wrong verdict.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const solanaSigners = solanaKeys.fromMnemonic(mnemonic)
afterEach(() => vi.unstubAllGlobals())

describe('missing platform globals', () => {
  const namespaces = {
    bip122: () => bip122({ keys: hdKeys({ mnemonic }) }),
    eip155: () => eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
    ton: async () => ton({ keys: await tonKeys.fromSecretKey(new Uint8Array(32).fill(3)) }),
    solana: () => solana({ keys: solanaSigners }),
  }
  const missing: Array<[string, RegExp]> = [
    ['TextEncoder', /TextEncoder.*fast-text-encoding/],
    ['TextDecoder', /TextDecoder.*fast-text-encoding/],
    ['crypto', /crypto\.getRandomValues.*react-native-get-random-values/],
    ['URL', /URL.*react-native-url-polyfill\/auto/],
    ['atob', /atob\/btoa/],
  ]
  for (const [name, message] of missing) {
    for (const [namespace, create] of Object.entries(namespaces)) {
      it(`${namespace}(): without ${name}, a ReferenceError naming it and its fix`, async () => {
        const keys = namespace === 'ton' ? await tonKeys.fromSecretKey(new Uint8Array(32).fill(3)) : undefined
        vi.stubGlobal(name, undefined)
        const make = namespace === 'ton' ? () => ton({ keys: keys! }) : (create as () => unknown)
        expect(make).toThrow(ReferenceError)
        expect(make).toThrow(message)
      })
    }
  }

  it('with every global present, nothing is thrown', async () => {
    for (const create of Object.values(namespaces))
      await expect(Promise.resolve().then(create)).resolves.toBeDefined()
  })
})

describe('a Buffer whose subarray is not a Buffer (Hermes: typed arrays without Symbol.species)', () => {
  it('ton() and the check /ton and /verify run at load: a TypeError naming Buffer#subarray and the fix', async () => {
    const keys = await tonKeys.fromSecretKey(new Uint8Array(32).fill(3))
    const { assertBufferGlobal } = await import('../../src/core/bufferGlobal.js')
    // The `buffer` package's Buffer as Hermes runs it: its subarray falls back to a plain Uint8Array.
    const { Buffer: BufferPackage } = await import('buffer/index.js') // the npm package, not node:buffer
    Object.defineProperty(BufferPackage, Symbol.species, { configurable: true, get: () => Uint8Array })
    try {
      vi.stubGlobal('Buffer', BufferPackage)
      expect(BufferPackage.alloc(1).subarray(0)).not.toBeInstanceOf(BufferPackage)
      expect(() => ton({ keys })).toThrow(/Buffer#subarray.*facebook\/hermes#1495.*README/)
      expect(assertBufferGlobal).toThrow(TypeError)
    } finally {
      Reflect.deleteProperty(BufferPackage, Symbol.species)
    }
    vi.stubGlobal('Buffer', BufferPackage)
    expect(assertBufferGlobal).not.toThrow()
  })
})
