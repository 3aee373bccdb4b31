import { bytesToHex } from '@noble/hashes/utils.js'
import type { Clock } from '../core/clock.js'
import { ProviderError } from '../core/errors.js'
import { withKeyTimeout } from '../core/timeout.js'
import { ecc } from '../crypto/secp256k1.js'
import { encodeAddress } from './encoding.js'
import { type Limiter, limiter } from './limiter.js'
import type {
  Account,
  AccountAddress,
  AccountUtxo,
  AddressEntry,
  AddressType,
  Bip122Chain,
  ChainProvider,
  Change,
  Intention,
  KeyProvider,
  Purpose,
} from './types.js'

/** BIP-44/49/84/86: the derivation purpose of each address type, and back. */
export const purposeOfType: Readonly<Record<AddressType, Purpose>> = {
  p2pkh: 44,
  'p2sh-p2wpkh': 49,
  p2wpkh: 84,
  p2tr: 86,
}

export const typeOfPurpose: Readonly<Record<Purpose, AddressType>> = {
  44: 'p2pkh',
  49: 'p2sh-p2wpkh',
  84: 'p2wpkh',
  86: 'p2tr',
}

export type AccountOptions = {
  keys: KeyProvider
  chain: Bip122Chain
  provider: ChainProvider | undefined
  clock: Clock
  /** Consecutive unused addresses that end discovery of one chain (BIP-44's gap limit). Default 20. */
  gapLimit?: number
  /** How long a discovery (address activity + UTXOs) is reused before it is read again. Default 10 s. */
  cacheMs?: number
}

/**
 * Unused receive and change addresses a dynamic wallet offers per intention: the spec's minimum. With the
 * first external addresses that makes at most 10 unused addresses, below the spec's limit of 20.
 */
const unusedPerChain = 2
/** Chain-provider reads in flight at once during discovery. */
const concurrency = 8

/** What one discovery saw: which indexes were used per purpose/chain, and every UTXO. */
export type Discovery = {
  takenAt: number
  /** `${purpose}/${change}` → used indexes, ascending. */
  used: ReadonlyMap<string, readonly number[]>
  utxos: readonly AccountUtxo[]
}

export type AccountState = Account & {
  /**
   * The last discovery, read again when older than `maxAgeMs` (default `cacheMs`); with 0, a read begun
   * after the call (not one already under way).
   */
  discovery(maxAgeMs?: number): Promise<Discovery>
  /** The UTXO set as a comparable string (`txid:vout` sorted), for the watcher. */
  utxoFingerprint(discovery: Discovery): string
}

const hdPurposes: readonly Purpose[] = [84, 86, 49, 44]
const changes: readonly Change[] = [0, 1]
const intentionOf = (purpose: Purpose): Intention => (purpose === 86 ? 'ordinal' : 'payment')

/**
 * One account on one chain: the addresses derived with one account index across purposes 44, 49, 84 and 86
 * (or the single address of a static wallet), with lookups by address and script, discovery through the chain
 * provider and the getAccountAddresses listing. Addresses are derived once and cached; the listing is cached
 * per discovery, so a warm call costs a map lookup.
 */
export async function createAccount(options: AccountOptions): Promise<AccountState> {
  const { keys, chain, provider, clock } = options
  const gapLimit = options.gapLimit ?? 20
  const cacheMs = options.cacheMs ?? 10_000
  const isStatic = keys.kind === 'single'
  const purposes: readonly Purpose[] = isStatic ? [purposeOfType[keys.addressType ?? 'p2wpkh']] : hdPurposes

  const byIndex = new Map<string, AccountAddress>()
  const byAddress = new Map<string, AccountAddress>()
  const byScript = new Map<string, AccountAddress>()

  async function address(purpose: Purpose, change: Change, index: number): Promise<AccountAddress> {
    const key = `${purpose}/${change}/${index}`
    const cached = byIndex.get(key)
    if (cached) return cached
    const keyPath = { purpose, coinType: chain.coinType, account: keys.account, change, index }
    // Our own copy: the address, its scripts and the signature check's cached key (sign.ts) must not change
    // if the key provider later reuses the array it returned.
    const publicKey = Uint8Array.from(await keys.publicKey(keyPath))
    if (publicKey.length !== 33 || !ecc.isPoint(publicKey))
      throw new Error('key provider gave an invalid public key')
    const addressType = typeOfPurpose[purpose]
    const encoded = encodeAddress(ecc, addressType, publicKey, chain.network)
    const entry: AccountAddress = {
      ...encoded,
      addressType,
      purpose,
      change,
      index,
      keyPath,
      path: isStatic ? undefined : `m/${purpose}'/${chain.coinType}'/${keys.account}'/${change}/${index}`,
      intention: intentionOf(purpose),
      publicKey,
      publicKeyHex: bytesToHex(encoded.internalKey ?? publicKey),
    }
    byIndex.set(key, entry)
    byAddress.set(entry.address, entry)
    byScript.set(bytesToHex(entry.scriptPubKey), entry)
    return entry
  }

  /** Signing takes only address records this account made, never a caller-built path. */
  const owned = (owner: AccountAddress): AccountAddress => {
    if (byAddress.get(owner.address) !== owner) {
      throw new Error('address record does not belong to this account')
    }
    return owner
  }

  const first = await address(purposes[0]!, 0, 0)
  const id = first.address

  // ---- discovery --------------------------------------------------------------------------------------

  let last: Discovery = { takenAt: Number.NEGATIVE_INFINITY, used: new Map(), utxos: [] }
  let inFlight: Promise<Discovery> | undefined

  const chainsToScan = (): Array<[Purpose, Change]> =>
    isStatic
      ? [[purposes[0]!, 0]]
      : purposes.flatMap((purpose) => changes.map((change) => [purpose, change] as [Purpose, Change]))

  /** The used indexes of one chain, ascending (BIP-44 discovery; a static wallet has only index 0). */
  async function usedIndexes(
    chainProvider: ChainProvider,
    limit: Limiter,
    purpose: Purpose,
    change: Change,
  ): Promise<number[]> {
    const isUsed = (index: number) =>
      limit(async () => {
        const entry = await address(purpose, change, index)
        return (await chainProvider.addressActivity(entry.address)).txCount > 0
      })
    if (isStatic) return (await isUsed(0)) ? [0] : []
    const used: number[] = []
    // Walk in windows until the `gapLimit` indexes past the highest used one have all been read unused.
    for (let next = 0, end = gapLimit; next < end; end = (used.at(-1) ?? -1) + gapLimit + 1) {
      const window = Array.from({ length: end - next }, (_, offset) => next + offset)
      const flags = await Promise.all(window.map(isUsed))
      used.push(...window.filter((_, position) => flags[position]))
      next = end
    }
    return used
  }

  async function discover(chainProvider: ChainProvider): Promise<Discovery> {
    const limit = limiter(concurrency)
    const scans = chainsToScan()
    const scanned = await Promise.all(
      scans.map(([purpose, change]) => usedIndexes(chainProvider, limit, purpose, change)),
    )
    // Built after all scans finish, so the order (purpose, chain, index) never depends on network timing.
    const used = new Map(scans.map(([purpose, change], i) => [`${purpose}/${change}`, scanned[i]!]))
    const usedAddresses = scans.flatMap(([purpose, change], i) =>
      scanned[i]!.map((index) => byIndex.get(`${purpose}/${change}/${index}`)!),
    )
    const utxos = (
      await Promise.all(
        usedAddresses.map((owner) =>
          limit(async () => (await chainProvider.utxos(owner.address)).map((utxo) => ({ ...utxo, owner }))),
        ),
      )
    ).flat()
    return { takenAt: clock(), used, utxos }
  }

  async function discovery(maxAgeMs = cacheMs): Promise<Discovery> {
    if (!provider) return last
    if (maxAgeMs <= 0) {
      // A read begun after this call: one already under way may predate the broadcast `refresh()` follows.
      await inFlight?.catch(() => undefined)
    } else if (clock() - last.takenAt < maxAgeMs) {
      // Before the first discovery `takenAt` is -Infinity, so the age is Infinity: never fresh.
      return last
    }
    inFlight ??= discover(provider)
      .then((result) => {
        last = result
        listings.clear()
        return result
      })
      .finally(() => {
        inFlight = undefined
      })
    return inFlight
  }

  const highestUsed = (seen: Discovery, purpose: Purpose, change: Change): number =>
    seen.used.get(`${purpose}/${change}`)?.at(-1) ?? -1

  /** Every address lookups may name: the discovery window of each purpose and chain. */
  async function deriveWindow(): Promise<void> {
    for (const [purpose, change] of chainsToScan()) {
      const end = isStatic ? 1 : highestUsed(last, purpose, change) + 1 + gapLimit
      for (let index = 0; index < end; index++) await address(purpose, change, index)
    }
  }

  async function findAddress(text: string): Promise<AccountAddress | undefined> {
    const known = byAddress.get(text)
    if (known) return known
    await deriveWindow()
    return byAddress.get(text)
  }

  async function findScript(scriptPubKey: Uint8Array): Promise<AccountAddress | undefined> {
    const key = bytesToHex(scriptPubKey)
    const known = byScript.get(key)
    if (known) return known
    await deriveWindow()
    return byScript.get(key)
  }

  // ---- getAccountAddresses ------------------------------------------------------------------------------

  /** Listings of `last` by intentions; cleared when a new discovery replaces it. */
  const listings = new Map<string, readonly AddressEntry[]>()

  async function addressEntries(intentions?: readonly string[]): Promise<readonly AddressEntry[]> {
    const seen = await discovery()
    const key = intentions === undefined ? '*' : [...new Set(intentions)].sort().join(',')
    const cached = listings.get(key)
    if (cached && seen === last) return cached
    const wanted = (purpose: Purpose) => intentions === undefined || intentions.includes(intentionOf(purpose))
    const picked: AccountAddress[] = []
    const add = (entry: AccountAddress) => {
      if (!picked.includes(entry)) picked.push(entry)
    }
    // The first external address of each wanted intention, the account id first.
    if (wanted(first.purpose)) add(first)
    if (!isStatic && wanted(86)) add(await address(86, 0, 0))
    // Every address holding a UTXO.
    for (const utxo of seen.utxos) if (wanted(utxo.owner.purpose)) add(utxo.owner)
    // A dynamic wallet offers the next unused receive and change addresses: P2WPKH for payment, P2TR for ordinal.
    if (!isStatic) {
      for (const purpose of [84, 86] as const) {
        if (!wanted(purpose)) continue
        for (const change of changes) {
          // Everything past the highest used index is unused (m/…/0/0, already listed when unused, is one of them).
          const start = highestUsed(seen, purpose, change) + 1
          for (let index = start; index < start + unusedPerChain; index++)
            add(await address(purpose, change, index))
        }
      }
    }
    // Frozen: results pass through the router uncopied, so a caller or event listener editing its copy would
    // otherwise edit every later answer.
    const listing = Object.freeze(picked.map((entry) => Object.freeze(toEntry(entry))))
    // A discovery that finished while this listing was built has already cleared the cache: don't refill it.
    if (seen === last) listings.set(key, listing)
    return listing
  }

  async function changeAddress(): Promise<AccountAddress> {
    if (isStatic) return first
    const seen = await discovery()
    return address(84, 1, highestUsed(seen, 84, 1) + 1)
  }

  async function utxos(): Promise<AccountUtxo[]> {
    if (!provider) throw new ProviderError(`no chain provider configured for ${chain.chainId}`)
    return [...(await discovery()).utxos]
  }

  return {
    id,
    chain,
    isStatic,
    knownAddress: (text) => byAddress.get(text),
    findAddress,
    findScript,
    address,
    utxos,
    changeAddress,
    addressEntries,
    refresh: async () => {
      await discovery(0)
    },
    discovery,
    utxoFingerprint: (seen) =>
      seen.utxos
        .map((utxo) => `${utxo.txid}:${utxo.vout}`)
        .sort()
        .join(','),
    signEcdsa: (owner, hash) => withKeyTimeout(keys.signEcdsa(owned(owner).keyPath, hash), keys.timeoutMs),
    signEcdsaRecoverable: async (owner, hash) => {
      const { keyPath, publicKey } = owned(owner)
      if (keys.signEcdsaRecoverable)
        return withKeyTimeout(keys.signEcdsaRecoverable(keyPath, hash), keys.timeoutMs)
      // An external signer that gives no recovery id: find the id that recovers our public key.
      const signature = await withKeyTimeout(keys.signEcdsa(keyPath, hash), keys.timeoutMs)
      for (const recoveryId of [0, 1, 2, 3] as const) {
        const recovered = ecc.recover(hash, signature, recoveryId, true)
        if (recovered && bytesToHex(recovered) === bytesToHex(publicKey)) return { signature, recoveryId }
      }
      throw new Error('signer returned a signature that does not match its public key')
    },
    signTaproot: (owner, hash, auxRand) =>
      withKeyTimeout(keys.signTaproot(owned(owner).keyPath, hash, auxRand), keys.timeoutMs),
  }
}

function toEntry(entry: AccountAddress): AddressEntry {
  return entry.path === undefined
    ? { address: entry.address, publicKey: entry.publicKeyHex, intention: entry.intention }
    : { address: entry.address, publicKey: entry.publicKeyHex, path: entry.path, intention: entry.intention }
}
