import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { WalletKit } from '@reown/walletkit'
import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import { type SolanaLocalChain, startSolanaLocal } from '@wallet-rpc/devchains/solanaLocal'
import { startTonSandbox, type TonSandbox } from '@wallet-rpc/devchains/tonSandbox'
import { SignClient } from '@walletconnect/sign-client'
import type { SessionTypes } from '@walletconnect/types'
import UniversalProvider from '@walletconnect/universal-provider'
import { BIP122_REGTEST, bip122, esplora, hdKeys } from '../../src/bip122/index.js'
import type { Namespace } from '../../src/core/namespace.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { solana, solanaKeys, solanaLocalnet, solanaRpc } from '../../src/solana/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'
import {
  attachWalletKit,
  type SessionRequestEvent,
  type WalletKitAdapter,
  type WalletRpcLike,
} from '../../src/walletkit/index.js'
import { type LocalRelay, relayCore, startLocalRelay } from '../walletkit/localRelay.js'

/**
 * A dapp and our wallet as they meet in production: the dapp's real `UniversalProvider` (what AppKit and
 * wagmi use) and the wallet's real `WalletKit` with `attachWalletKit`, talking through the local relay;
 * behind the wallet, real chains (the embedded regtest chain with Esplora, @ton/sandbox, litesvm). The
 * session is proposed with the namespaces AppKit itself builds (`WcHelpersUtil.createNamespaces`).
 */

export const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
/** TON's own 24-word mnemonic (ton-connect/kit WalletV5R1 fixture, as in test-vectors/ton). */
export const tonMnemonic =
  'hospital stove relief fringe tongue always charge angry urge sentence again match nerve inquiry senior coconut label tumble carry category beauty bean road solution'
export const TON_TESTNET = 'ton:-3'
export const dappUrl = 'https://dapp.example.com'

/** The CaipNetwork objects AppKit keeps for each network (the fields the adapters read). */
export type CaipNetwork = {
  id: string | number
  caipNetworkId: string
  chainNamespace: string
  name: string
  nativeCurrency: { name: string; symbol: string; decimals: number }
  rpcUrls: { default: { http: string[] } }
}

export function caipNetwork(
  caipNetworkId: string,
  name: string,
  currency: [string, number],
  rpcUrl: string,
): CaipNetwork {
  const [chainNamespace, id] = caipNetworkId.split(':') as [string, string]
  return {
    id: chainNamespace === 'eip155' ? Number(id) : id,
    caipNetworkId,
    chainNamespace,
    name,
    nativeCurrency: { name: currency[0], symbol: currency[0], decimals: currency[1] },
    rpcUrls: { default: { http: [rpcUrl] } },
  }
}

const require = createRequire(import.meta.url)

/** The directory of an installed package (from its entry point; `exports` hides package.json). */
function packageDir(name: string, from = import.meta.url): string {
  let dir = dirname(createRequire(from).resolve(name))
  while (!existsSync(join(dir, 'package.json')) || !dir.includes(name.split('/').at(-1)!)) dir = dirname(dir)
  return dir
}

export function installedVersion(name: string): string {
  return (require(join(packageDir(name), 'package.json')) as { version: string }).version
}

/**
 * AppKit's controllers are module-level state, one copy per installed version: each adapter reads the
 * copy it was installed with. This imports that copy (the adapter's nested one, else the hoisted one).
 */
export async function controllersOf(adapterPackage: string): Promise<AppKitControllers> {
  const nested = join(packageDir(adapterPackage), 'node_modules/@reown/appkit-controllers')
  const dir = existsSync(nested) ? nested : packageDir('@reown/appkit-controllers')
  return (await import(pathToFileURL(join(dir, 'dist/esm/exports/index.js')).href)) as AppKitControllers
}

/** The slice of @reown/appkit-controllers the tests use (the package is typed for browsers and React). */
export type AppKitControllers = {
  ChainController: {
    initialize(adapters: unknown[], caipNetworks: CaipNetwork[], clients: Record<string, unknown>): void
    setAccountProp(prop: 'caipAddress', value: string, chain: string): void
    getCaipNetworkByNamespace(namespace: string): CaipNetwork | undefined
  }
  WcHelpersUtil: {
    createNamespaces(caipNetworks: CaipNetwork[]): Record<string, unknown>
  }
}

/**
 * Puts an adapter's AppKit state where `createAppKit` would: its networks, the active one first, and the
 * connected account (a CAIP-10 id of the session). Headless stand-in for the modal; nothing else is faked.
 */
export function activate(
  controllers: AppKitControllers,
  adapter: { namespace?: string | undefined },
  networks: CaipNetwork[],
  caipAddress: string,
): void {
  controllers.ChainController.initialize([adapter], networks, {})
  controllers.ChainController.setAccountProp('caipAddress', caipAddress, networks[0]!.chainNamespace)
}

export type ReceivedRequest = { chainId: string; method: string; params: unknown }

export type DappSession = {
  relay: LocalRelay
  bitcoin: BitcoinRegtest
  tonChain: TonSandbox
  solanaChain: SolanaLocalChain
  wallet: WalletRpc
  reviews: Review[]
  /** Every request the wallet received, as the dapp's library built it (after the SDK's transport). */
  received: ReceivedRequest[]
  /** What `attachWalletKit` reported to `onError` (SDK failures); tests expect it empty. */
  walletErrors: unknown[]
  provider: UniversalProvider
  session: SessionTypes.Struct
  networks: { bitcoin: CaipNetwork; ton: CaipNetwork; solana: CaipNetwork }
  /** Pairs the wallet with another dapp client (a `wc:` URI it displayed). */
  pair(uri: string): Promise<void>
  /** The session's account on a chain (`chain:address` stripped to the address). */
  account(chainId: string): string
  stop(): Promise<void>
}

export type DappSessionOptions = {
  /** Extra namespaces for the wallet (e.g. eip155 on anvil). */
  namespaces?: Namespace[]
  /** Extra networks the dapp proposes. */
  networks?: CaipNetwork[]
  /** Options for the ton namespace (the compatibility switch). */
  ton?: Partial<Parameters<typeof ton>[0]>
}

/** A dapp's UniversalProvider and a wallet's WalletKit, paired through the local relay. */
export type RelaySession = {
  walletKit: Awaited<ReturnType<typeof WalletKit.init>>
  adapter: WalletKitAdapter
  client: Awaited<ReturnType<typeof SignClient.init>>
  provider: UniversalProvider
  session: SessionTypes.Struct
  /** Detaches the adapter, disconnects the dapp and shuts both SDKs' transports down. */
  close(): Promise<void>
}

/**
 * `wallet` behind a real WalletKit with `attachWalletKit` (sessions approved, `onError` given), a dapp's real
 * UniversalProvider pairing with it through `relay` (the `wc:` URI it displays goes to the wallet), and the
 * session the dapp proposed with `optionalNamespaces`.
 */
export async function connectOverRelay(
  relay: LocalRelay,
  wallet: WalletRpcLike,
  optionalNamespaces: Record<string, unknown>,
  options: { dappName?: string; onError?: (error: unknown) => void } = {},
): Promise<RelaySession> {
  const walletKit = await WalletKit.init({
    core: relayCore(relay, 'wallet'),
    metadata: { name: 'wallet-rpc', description: '', url: 'https://wallet.example', icons: [] },
  })
  const adapter = attachWalletKit(walletKit, wallet, {
    approveSession: () => true,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  })
  const client = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: options.dappName ?? 'Example dapp', description: '', url: dappUrl, icons: [] },
    logger: 'silent',
  })
  const provider = await UniversalProvider.init({ client: client as never, logger: 'silent' })
  provider.on('display_uri', (uri: string) => {
    void walletKit.pair({ uri })
  })
  const session = await provider.connect({ optionalNamespaces: optionalNamespaces as never })
  if (!session) throw new Error('UniversalProvider.connect gave no session')
  return {
    walletKit,
    adapter,
    client,
    provider,
    session,
    async close() {
      adapter.detach()
      await provider.disconnect().catch(() => {})
      for (const sdk of [client, walletKit]) {
        await sdk.core.relayer.transportClose().catch(() => {})
        sdk.core.heartbeat.stop()
      }
    },
  }
}

export async function startDappSession(options: DappSessionOptions = {}): Promise<DappSession> {
  const [relay, bitcoin, tonChain, solanaChain] = await Promise.all([
    startLocalRelay(),
    startBitcoinRegtest(),
    startTonSandbox(),
    startSolanaLocal(),
  ])
  const reviews: Review[] = []
  const walletErrors: unknown[] = []
  const wallet = createWalletRpc({
    namespaces: [
      bip122({
        keys: hdKeys({ mnemonic }),
        chains: { [BIP122_REGTEST]: { provider: esplora(bitcoin.url, { retries: 0 }) } },
        cacheMs: 0,
        gapLimit: 8,
      }),
      ton({
        keys: tonKeys.fromMnemonic(tonMnemonic),
        chains: [TON_TESTNET],
        providers: { [TON_TESTNET]: tonChain.provider },
        ...options.ton,
      }),
      solana({
        keys: solanaKeys.fromMnemonic(mnemonic),
        chains: [solanaLocalnet],
        providers: { [solanaLocalnet]: solanaRpc(solanaChain.url) },
      }),
      ...(options.namespaces ?? []),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  const received: ReceivedRequest[] = []
  // The wallet as attachWalletKit sees it, recording each request exactly as WalletKit delivered it.
  const observed: WalletRpcLike = {
    supported: () => wallet.supported(),
    accounts: (chainId) => wallet.accounts(chainId),
    sessionProperties: () => wallet.sessionProperties(),
    announceSession: (chainIds) => wallet.announceSession(chainIds),
    on: (type, listener) => wallet.on(type, listener),
    handle: (input) => {
      // The adapter also calls handle() itself, in the plain shape (capabilities at session approval).
      const event = input as Partial<SessionRequestEvent>
      if (event.params !== undefined)
        received.push({ chainId: event.params.chainId, ...event.params.request })
      return wallet.handle(input)
    },
  }
  const networks = {
    bitcoin: caipNetwork(BIP122_REGTEST, 'Bitcoin Regtest', ['BTC', 8], bitcoin.url),
    ton: caipNetwork(TON_TESTNET, 'TON Testnet', ['TON', 9], 'http://127.0.0.1/unused'),
    solana: caipNetwork(solanaLocalnet, 'Solana Localnet', ['SOL', 9], solanaChain.url),
  }
  // The namespaces AppKit 1.8.23's own WalletConnect connector proposes for these networks.
  const { WcHelpersUtil } = await controllersOf('@reown/appkit-adapter-bitcoin')
  const optionalNamespaces = WcHelpersUtil.createNamespaces([
    ...Object.values(networks),
    ...(options.networks ?? []),
  ])
  const connected = await connectOverRelay(relay, observed, optionalNamespaces, {
    onError: (error) => walletErrors.push(error),
  })
  const { provider, session, walletKit } = connected
  return {
    relay,
    bitcoin,
    tonChain,
    solanaChain,
    wallet,
    reviews,
    walletErrors,
    received,
    provider,
    session,
    networks,
    async pair(uri) {
      await walletKit.pair({ uri })
    },
    account(chainId) {
      const [namespace] = chainId.split(':')
      const found = session.namespaces[namespace!]?.accounts.find((account) =>
        account.startsWith(`${chainId}:`),
      )
      if (!found) throw new Error(`no session account on ${chainId}`)
      return found.slice(chainId.length + 1)
    },
    async stop() {
      await connected.close()
      await wallet.close()
      await Promise.all([relay.close(), bitcoin.stop(), tonChain.stop(), solanaChain.stop()])
    },
  }
}
