import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAccount } from '../../src/bip122/account.js'
import { BIP122_REGTEST, bip122Chains } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import type { AccountAddress, ChainProvider, Utxo } from '../../src/bip122/types.js'

const keys = hdKeys({
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
})
const history = new Map<string, number>()
const funded = new Map<string, Utxo[]>()
const provider: ChainProvider = {
  utxos: async (address) => funded.get(address) ?? [],
  addressActivity: async (address) => ({ txCount: history.get(address) ?? 0 }),
  feeRates: async () => ({}),
  rawTransaction: async () => new Uint8Array(),
  broadcast: async () => '',
}
const account = await createAccount({ keys, chain: bip122Chains[BIP122_REGTEST]!, provider, clock: () => 0 })

const slot = fc.record({
  purpose: fc.constantFrom(44, 49, 84, 86) as fc.Arbitrary<44 | 49 | 84 | 86>,
  change: fc.constantFrom(0, 1) as fc.Arbitrary<0 | 1>,
  index: fc.nat({ max: 45 }),
  holdsUtxo: fc.boolean(),
})

describe('getAccountAddresses invariants over random histories', () => {
  it('first external first, every funded address, ≥2 unused per chain after the last used, < 20 unused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(slot, { maxLength: 12 }), async (slots) => {
        history.clear()
        funded.clear()
        const fundedAddresses: AccountAddress[] = []
        /** BIP-44 discovery: an index is found only within 20 of the last one found on its chain. */
        const highestFound = (purpose: number, change: number) => {
          let highest = -1
          const used = slots.filter((s) => s.purpose === purpose && s.change === change).map((s) => s.index)
          for (const index of [...new Set(used)].sort((a, b) => a - b)) {
            if (index > highest + 20) break
            highest = index
          }
          return highest
        }
        for (const [n, { purpose, change, index, holdsUtxo }] of slots.entries()) {
          const entry = await account.address(purpose, change, index)
          history.set(entry.address, (history.get(entry.address) ?? 0) + 1)
          if (holdsUtxo) {
            const txid = n.toString(16).padStart(64, '0')
            funded.set(entry.address, [
              ...(funded.get(entry.address) ?? []),
              { txid, vout: 0, value: 1000, confirmed: true },
            ])
            fundedAddresses.push(entry)
          }
        }
        await account.refresh()
        const entries = await account.addressEntries()
        const listed = entries.map((entry) => entry.address)
        expect(listed[0]).toBe(account.id)
        expect(new Set(listed).size).toBe(listed.length)
        for (const entry of fundedAddresses) {
          if (entry.index <= highestFound(entry.purpose, entry.change))
            expect(listed).toContain(entry.address)
        }
        const unused = entries.filter((entry) => !history.has(entry.address))
        expect(unused.length).toBeLessThan(20)
        // What the README promises: 2 receive + 2 change per intention, plus the two first external addresses.
        expect(unused.length).toBeLessThanOrEqual(10)
        for (const purpose of [84, 86]) {
          for (const change of [0, 1]) {
            const highest = highestFound(purpose, change)
            const fresh = entries.filter((entry) => {
              const [, p, , , c, i] = entry.path!.split('/')
              return p === `${purpose}'` && c === String(change) && Number(i) > highest
            })
            expect(fresh.length).toBeGreaterThanOrEqual(2)
          }
        }
      }),
      { numRuns: 40 },
    )
  })
})
