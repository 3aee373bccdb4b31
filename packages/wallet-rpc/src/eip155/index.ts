/**
 * `wallet-rpc/eip155`: Ethereum and EVM chains. `eip155({ keys, chains })` builds the namespace;
 * keys come from `mnemonicKeys`, `privateKeyKeys` or `accountKeys` (any viem account, including external
 * signers), chain providers anything with an EIP-1193 `request` (a viem client, or `httpProvider(url)` for plain HTTP).
 */

export type { CallsStatus } from './calls/status.js'
export { type CallsStore, memoryCallsStore, type StoredCalls } from './calls/store.js'
export { type Eip155ConnectPaymentsOptions, eip155ConnectPayments } from './connectPayments.js'
export {
  accountKeys,
  type Eip155Keys,
  type Eip155Signer,
  ethereumPath,
  type MnemonicKeysOptions,
  mnemonicKeys,
  privateKeyKeys,
} from './keys.js'
export { ethSignWarningCode } from './methods/eth_sign.js'
export type { AddChainRequest } from './methods/wallet_addEthereumChain.js'
export type { Capabilities } from './methods/wallet_getCapabilities.js'
export type { SendCallsResult } from './methods/wallet_sendCalls.js'
export type { WatchAssetRequest } from './methods/wallet_watchAsset.js'
export { type Eip155ChainOptions, type Eip155Options, eip155 } from './namespace.js'
export type { Eip155ChainProvider } from './provider.js'
export { type HttpProviderOptions, httpProvider } from './providers/http.js'
