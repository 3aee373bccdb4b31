import { assertPlatformGlobals } from '../core/globals.js'
import type { MethodTable, Namespace } from '../core/namespace.js'
import { activeSecp256k1 } from '../crypto/secp256k1.js'
import { memoryCallsStore } from './calls/store.js'
import type { ChainConfig, Eip155Env } from './env.js'
import { eip155ErrorAnswer } from './errors.js'
import { sendRawTransaction } from './methods/eth_sendRawTransaction.js'
import { sendTransaction } from './methods/eth_sendTransaction.js'
import { ethSign, ethSignDisabled } from './methods/eth_sign.js'
import { signTransaction } from './methods/eth_signTransaction.js'
import { signTypedData } from './methods/eth_signTypedData.js'
import { personalSign } from './methods/personal_sign.js'
import { addEthereumChain } from './methods/wallet_addEthereumChain.js'
import { getCallsStatus } from './methods/wallet_getCallsStatus.js'
import { getCapabilities } from './methods/wallet_getCapabilities.js'
import { sendCalls } from './methods/wallet_sendCalls.js'
import { showCallsStatus } from './methods/wallet_showCallsStatus.js'
import { switchEthereumChain } from './methods/wallet_switchEthereumChain.js'
import { watchAsset } from './methods/wallet_watchAsset.js'
import { NonceManager } from './nonces.js'
import { ChainAccess } from './provider.js'
import { defaultSimulationOptions, type SimulationOptions } from './simulation/reviewSimulation.js'
import type { Eip155ChainOptions, Eip155Options } from './types.js'
import { getAddress, isAddress } from './viemUtils.js'

export type { Eip155ChainOptions, Eip155Options } from './types.js'

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
    report: () => {},
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
    describeError: eip155ErrorAnswer,
    attach(host) {
      env.report = host.onError
    },
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
