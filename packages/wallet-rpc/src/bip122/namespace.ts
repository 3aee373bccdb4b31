import { systemClock } from '../core/clock.js'
import { ChainNotConfiguredError } from '../core/errors.js'
import { assertPlatformGlobals } from '../core/globals.js'
import type { AnyMethod, MethodTable, Namespace, NamespaceHost } from '../core/namespace.js'
import { activeSecp256k1 } from '../crypto/secp256k1.js'
import { activeSha256 } from '../crypto/sha256.js'
import { type AccountState, createAccount } from './account.js'
import type { OutputAssetsProvider } from './assets/types.js'
import { addressKey, BIP122_MAINNET, BIP122_REGTEST, BIP122_TESTNET, chainById } from './chains.js'
import { getAccountAddresses } from './methods/getAccountAddresses.js'
import { sendTransfer } from './methods/sendTransfer.js'
import { signMessage } from './methods/signMessage.js'
import { signPsbt } from './methods/signPsbt.js'
import { ownedAddress } from './ownership.js'
import type { Bip122Policy } from './policy.js'
import type { AddressEntry, Bip122Wallet, ChainProvider, ChainState, KeyProvider } from './types.js'

/** Builds one method for one wallet (methods need the wallet's keys, chains and providers). */
export type MethodFactory = (wallet: Bip122Wallet) => AnyMethod

/**
 * The bip122 method table: one line per method, each naming the file that holds its schema, review and
 * handler. Adding a method = adding its file and its line here.
 */
export const bip122MethodFactories = {
  getAccountAddresses,
  signMessage,
  signPsbt,
  sendTransfer,
} as const satisfies Record<string, MethodFactory>

export function createMethodTable(wallet: Bip122Wallet): MethodTable {
  return Object.fromEntries(
    Object.entries(bip122MethodFactories).map(([name, factory]) => [name, factory(wallet)]),
  )
}

export const ADDRESSES_CHANGED = 'bip122_addressesChanged'

export type Bip122ChainOptions = {
  /** Reads UTXOs and address history and broadcasts; without one, signing-only methods still work. */
  provider?: ChainProvider
  /**
   * What each output carries (inscriptions, runes, rare sats), e.g. `ordServer(url)`. With it, sendTransfer
   * never spends a coin carrying any of them (or one the index does not know), and signPsbt's review says where
   * they go. A wallet that holds ordinals should configure one.
   */
  assets?: OutputAssetsProvider
}

export type Bip122Options = {
  keys: KeyProvider
  /** CAIP-2 chain id → options. Default: mainnet, testnet and regtest, no providers. */
  chains?: Record<string, Bip122ChainOptions>
  /**
   * Polls each announced chain's UTXO set every `intervalMs` and emits `bip122_addressesChanged` when it
   * changes. Off when absent. Stopped by `close()`; its timer never keeps the process alive.
   */
  watch?: { intervalMs: number }
  /** BIP-44 gap limit for discovery. Default 20. */
  gapLimit?: number
  /** How long a discovery is reused by getAccountAddresses and lookups. Default 10 000 ms. */
  cacheMs?: number
  /**
   * Chain whose listing is `sessionProperties.bip122_getAccountAddresses`. Default: the first chain with a
   * provider, else the first chain.
   */
  sessionPropertiesChain?: string
  /** signPsbt/sendTransfer policy: fee caps, PSBT limits, UTXO reservation time (`policy.ts`). */
  policy?: Bip122Policy
}

/** The namespace plus the hooks the rest of bip122 (and tests) use. */
export type Bip122Namespace = Namespace & {
  readonly wallet: Bip122Wallet
  /** Re-reads the UTXO set of `chainId` now; emits and resolves true when it changed. */
  checkForChanges(chainId: string): Promise<boolean>
}

const defaultChains = [BIP122_MAINNET, BIP122_TESTNET, BIP122_REGTEST]

/**
 * The `bip122` namespace: getAccountAddresses, signMessage (and the methods the table lists), the account id
 * per chain for session approval, `sessionProperties.bip122_getAccountAddresses` and the
 * `bip122_addressesChanged` event (on `announceSession`, after each broadcast, and from the UTXO watcher).
 */
export function bip122(options: Bip122Options): Bip122Namespace {
  assertPlatformGlobals()
  // The backends are chosen when a namespace is created (never at import), so `wallet.backends()` names them.
  activeSecp256k1()
  activeSha256()
  const chainOptions: Record<string, Bip122ChainOptions> =
    options.chains ?? Object.fromEntries(defaultChains.map((chainId) => [chainId, {}]))
  const chainIds = Object.keys(chainOptions)
  if (chainIds.length === 0) throw new TypeError('bip122: no chains')
  for (const chainId of chainIds) {
    if (!chainById(chainId)) throw new TypeError(`bip122: unknown chain ${chainId}`)
  }
  // WalletConnect session properties are per session, not per chain: list the chain the wallet actually
  // watches (the first with a provider), else the first chain.
  const propertiesChain =
    options.sessionPropertiesChain ??
    chainIds.find((chainId) => chainOptions[chainId]?.provider) ??
    chainIds[0]!
  if (!chainIds.includes(propertiesChain)) throw new TypeError('bip122: sessionPropertiesChain is not served')

  let host: NamespaceHost | undefined
  let closed = false
  const states = new Map<string, Promise<ChainState & { account: AccountState }>>()
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const fingerprints = new Map<string, string>()
  const pending = new Set<Promise<unknown>>()

  function chain(chainId: string): Promise<ChainState & { account: AccountState }> {
    const known = states.get(chainId)
    if (known) return known
    const table = chainById(chainId)
    if (!table || !Object.hasOwn(chainOptions, chainId))
      return Promise.reject(new ChainNotConfiguredError(chainId))
    const provider = chainOptions[chainId]?.provider
    const assets = chainOptions[chainId]?.assets
    const created = createAccount({
      keys: options.keys,
      chain: table,
      provider,
      clock: () => (host?.clock ?? systemClock)(),
      ...(options.gapLimit === undefined ? {} : { gapLimit: options.gapLimit }),
      ...(options.cacheMs === undefined ? {} : { cacheMs: options.cacheMs }),
    }).then((account) => ({ chain: table, provider, assets, account }))
    // A failed derivation (e.g. an external signer offline) is retried on the next request.
    created.catch(() => states.delete(chainId))
    states.set(chainId, created)
    return created
  }

  const emit = (chainId: string, data: readonly AddressEntry[]) => {
    if (!closed) host?.emit({ name: ADDRESSES_CHANGED, chainId, data })
  }

  /** Runs background work so its failure goes to onError and `close()` can wait for it. */
  const track = (work: Promise<unknown>) => {
    const guarded = work.catch((error) => host?.onError(error)).finally(() => pending.delete(guarded))
    pending.add(guarded)
  }

  async function checkForChanges(chainId: string): Promise<boolean> {
    const { account } = await chain(chainId)
    const before = fingerprints.get(chainId) ?? account.utxoFingerprint(await account.discovery())
    const after = account.utxoFingerprint(await account.discovery(0))
    fingerprints.set(chainId, after)
    if (after === before) return false
    emit(chainId, await account.addressEntries())
    return true
  }

  function startWatcher(chainId: string): void {
    const interval = options.watch?.intervalMs
    if (interval === undefined || closed || timers.has(chainId) || !chainOptions[chainId]?.provider) return
    const tick = () => {
      const run = checkForChanges(chainId).finally(() => {
        if (!closed) schedule()
      })
      track(run)
    }
    const schedule = () => {
      const timer = setTimeout(tick, interval)
      timer.unref?.()
      timers.set(chainId, timer)
    }
    schedule()
  }

  const wallet: Bip122Wallet = {
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    chain,
    async resolveAccount(chainId, accountParam) {
      const { account } = await chain(chainId)
      await ownedAddress(account, accountParam, 'account')
      return account
    },
    afterBroadcast(chainId, _txid) {
      track(
        (async () => {
          const { account } = await chain(chainId)
          await account.refresh()
          fingerprints.set(chainId, account.utxoFingerprint(await account.discovery()))
          emit(chainId, await account.addressEntries())
        })(),
      )
    },
  }

  return {
    name: 'bip122',
    chains: chainIds,
    methods: createMethodTable(wallet),
    events: [ADDRESSES_CHANGED],
    wallet,
    checkForChanges,
    attach(attached) {
      host = attached
    },
    async accounts(chainId) {
      return [(await chain(chainId)).account.id]
    },
    addressKey,
    async sessionProperties(sessionChains = chainIds) {
      const listed = sessionChains.includes(propertiesChain) ? propertiesChain : sessionChains[0]
      const { account } = await chain(listed ?? propertiesChain)
      return { bip122_getAccountAddresses: JSON.stringify(await account.addressEntries()) }
    },
    async announceSession(chainId) {
      const { account } = await chain(chainId)
      const entries = await account.addressEntries()
      fingerprints.set(chainId, account.utxoFingerprint(await account.discovery()))
      emit(chainId, entries)
      startWatcher(chainId)
    },
    async close() {
      closed = true
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
      await Promise.all([...pending])
    },
  }
}
