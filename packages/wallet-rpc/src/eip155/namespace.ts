import type { Address } from 'viem'
import { assertPlatformGlobals } from '../core/globals.js'
import type { MethodTable, Namespace } from '../core/namespace.js'
import { activeSecp256k1 } from '../crypto/secp256k1.js'
import { type CallsStore, memoryCallsStore, type StoredCalls } from './calls/store.js'
import type { ChainConfig, Eip155Env } from './env.js'
import type { Eip155Keys } from './keys.js'
import { sendRawTransaction } from './methods/eth_sendRawTransaction.js'
import { sendTransaction } from './methods/eth_sendTransaction.js'
import { ethSign, ethSignDisabled } from './methods/eth_sign.js'
import { signTransaction } from './methods/eth_signTransaction.js'
import { signTypedData } from './methods/eth_signTypedData.js'
import { personalSign } from './methods/personal_sign.js'
import { type AddChainRequest, addEthereumChain } from './methods/wallet_addEthereumChain.js'
import { getCallsStatus } from './methods/wallet_getCallsStatus.js'
import { getCapabilities } from './methods/wallet_getCapabilities.js'
import { sendCalls } from './methods/wallet_sendCalls.js'
import { showCallsStatus } from './methods/wallet_showCallsStatus.js'
import { switchEthereumChain } from './methods/wallet_switchEthereumChain.js'
import { type WatchAssetRequest, watchAsset } from './methods/wallet_watchAsset.js'
import { NonceManager } from './nonces.js'
import { ChainAccess, type Eip155ChainProvider } from './provider.js'
import { defaultSimulationOptions, type SimulationOptions } from './simulation/reviewSimulation.js'
import { getAddress, isAddress } from './viemUtils.js'

export type Eip155ChainOptions = {
  /** The numeric chain id, e.g. 1 for `eip155:1`. */
  chainId: number
  /** A viem public client for this chain. Without one the chain is signing-only. */
  provider?: Eip155ChainProvider
  /** Native currency symbol shown in reviews. Default `ETH`. */
  nativeSymbol?: string
  /**
   * EIP-7702 atomic batches (`wallet_sendCalls`): the delegate contract — an ERC-7821 executor such as
   * OpenZeppelin's, deployed on this chain — the account is upgraded to by its first atomic batch. Without
   * it, batches on this chain are sent as one transaction per call and `atomicRequired` answers 5760.
   */
  eip7702?: { delegate: Address }
}

export type Eip155Options = {
  keys: Eip155Keys
  /** The chains this wallet serves: a bare chain id (signing only) or a chain with its provider. */
  chains: readonly (number | Eip155ChainOptions)[]
  /**
   * Serve `eth_sign` (EIP-191 prefixed, with a `danger` review warning `eth_sign.blind` that the wallet's
   * `policy.allowDangerous` must list). Default false: `eth_sign` answers 5101 with the reason.
   */
  enableEthSign?: boolean
  /** Percent added to a gas estimate (the result is still capped below the block gas limit). Default 25. */
  gasMarginPercent?: number
  /**
   * Transaction reviews on a chain with a provider simulate the transaction (eth_simulateV1, eth_call where
   * the node lacks it) and show the account's balance changes and approvals; a revert is a `danger`
   * warning. `false` turns it off. Defaults: 5000 ms, 500 logs, 16 token lookups.
   */
  simulation?: false | Partial<SimulationOptions>
  /** EIP-5792 batches: where they are kept (default: in memory) and the most calls one may hold (default 16). */
  calls?: { store?: CallsStore; maxCalls?: number }
  /** Serves `wallet_showCallsStatus`: the wallet shows the batch its own way. */
  showCallsStatus?: (batch: StoredCalls) => void | Promise<void>
  /** Serves `wallet_addEthereumChain`: asked after the chain's RPC was checked; `true` adds the chain. */
  addEthereumChain?: (chain: AddChainRequest) => boolean | Promise<boolean>
  /** Serves `wallet_watchAsset`: asked after the token's symbol and decimals were checked on chain. */
  watchAsset?: (asset: WatchAssetRequest) => boolean | Promise<boolean>
}

/** The eip155 (Ethereum and EVM chains) namespace for `createWalletRpc`. */
export function eip155(options: Eip155Options): Namespace {
  assertPlatformGlobals()
  // The backend is chosen when the namespace is created (never at import), so `wallet.backends()` names it.
  activeSecp256k1()
  const chains = new Map<string, ChainConfig>()
  // The namespace's own list, which `wallet_addEthereumChain` extends once the wallet allowed a chain.
  const servedChains: string[] = []
  const simulation = simulationOptions(options.simulation)
  const addChain = (chain: Eip155ChainOptions) => {
    if (!Number.isSafeInteger(chain.chainId) || chain.chainId <= 0) {
      throw new Error(`eip155 chain id must be a positive integer, got ${chain.chainId}`)
    }
    const caip2 = `eip155:${chain.chainId}`
    if (chains.has(caip2)) throw new Error(`${caip2} given twice`)
    const delegate = chain.eip7702?.delegate
    if (delegate !== undefined && !isAddress(delegate, { strict: true }))
      throw new Error(`${caip2}: eip7702.delegate must be an address`)
    chains.set(caip2, {
      chainId: chain.chainId,
      access: chain.provider === undefined ? undefined : new ChainAccess(chain.chainId, chain.provider),
      nativeSymbol: chain.nativeSymbol ?? 'ETH',
      simulation: chain.provider === undefined ? undefined : simulation,
      delegate: delegate === undefined ? undefined : getAddress(delegate),
    })
    servedChains.push(caip2)
  }
  for (const entry of options.chains) addChain(typeof entry === 'number' ? { chainId: entry } : entry)
  const gasMarginPercent = options.gasMarginPercent ?? 25
  if (!Number.isInteger(gasMarginPercent) || gasMarginPercent < 0 || gasMarginPercent > 100) {
    throw new Error('gasMarginPercent must be a whole number from 0 to 100')
  }
  const maxCalls = options.calls?.maxCalls ?? 16
  if (!Number.isSafeInteger(maxCalls) || maxCalls < 1)
    throw new Error('calls.maxCalls must be a positive integer')
  const env: Eip155Env = {
    keys: options.keys,
    chains,
    nonces: new NonceManager(),
    gasMarginPercent,
    calls: { store: options.calls?.store ?? memoryCallsStore(), maxCalls, inFlight: new Set() },
  }

  const signTypedDataMethod = signTypedData(env)
  const methods: Record<string, MethodTable[string]> = {
    personal_sign: personalSign(env),
    eth_signTypedData: signTypedDataMethod,
    eth_signTypedData_v3: signTypedDataMethod,
    eth_signTypedData_v4: signTypedDataMethod,
    eth_sendTransaction: sendTransaction(env),
    eth_signTransaction: signTransaction(env),
    eth_sendRawTransaction: sendRawTransaction(env),
    wallet_getCapabilities: getCapabilities(env),
    wallet_sendCalls: sendCalls(env),
    wallet_getCallsStatus: getCallsStatus(env),
    wallet_switchEthereumChain: switchEthereumChain(env),
  }
  // Methods that hand over to the wallet's own UI exist only when the wallet gives the callback.
  if (options.showCallsStatus) methods.wallet_showCallsStatus = showCallsStatus(env, options.showCallsStatus)
  if (options.watchAsset) methods.wallet_watchAsset = watchAsset(env, options.watchAsset)
  if (options.addEthereumChain)
    methods.wallet_addEthereumChain = addEthereumChain(env, options.addEthereumChain, (chain, provider) =>
      addChain({ chainId: chain.chainId, provider, nativeSymbol: chain.nativeCurrency.symbol }),
    )
  if (options.enableEthSign === true) methods.eth_sign = ethSign(env)
  else {
    // Answered (5101 with the reason) but not enumerable, so `supported()` never offers it to a session.
    Object.defineProperty(methods, 'eth_sign', { value: ethSignDisabled, enumerable: false })
  }

  return {
    name: 'eip155',
    chains: servedChains,
    methods,
    events: ['chainChanged', 'accountsChanged'],
    async accounts(chainId) {
      return chains.has(chainId) ? [...(await options.keys.addresses())] : []
    },
  }
}

function simulationOptions(given: Eip155Options['simulation']): SimulationOptions | undefined {
  if (given === false) return undefined
  const options = { ...defaultSimulationOptions, ...given }
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new Error(`simulation.${name} must be a positive integer`)
  }
  return options
}
