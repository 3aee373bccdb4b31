export {
  ecc,
  loadSecp256k1,
  type Secp256k1,
  type Secp256k1Backend,
  secp256k1Backend,
} from '../crypto/secp256k1.js'
export { type AccountOptions, type AccountState, createAccount, type Discovery } from './account.js'
export { type OrdServerOptions, ordServer } from './assets/ordServer.js'
export type {
  OutputAssets,
  OutputAssetsOptions,
  OutputAssetsProvider,
  OutputInscription,
  OutputRune,
} from './assets/types.js'
export {
  BIP122_MAINNET,
  BIP122_REGTEST,
  BIP122_TESTNET,
  bip122Chains,
  chainById,
  outputScriptOf,
} from './chains.js'
export { type ExternalSignerOptions, externalSigner } from './keys/externalSigner.js'
export { type HdKeysOptions, hdKeys } from './keys/hdKeys.js'
export { type SingleKeyOptions, singleKey } from './keys/singleKey.js'
export { bitcoinMessageHash } from './message/bip137.js'
export { bip322MessageHash } from './message/bip322.js'
export {
  ADDRESSES_CHANGED,
  type Bip122ChainOptions,
  type Bip122Namespace,
  type Bip122Options,
  bip122,
  bip122MethodFactories,
  createMethodTable,
  type MethodFactory,
} from './namespace.js'
export { ownedAddress } from './ownership.js'
export { type AssetKind, type Bip122Policy, resolvePolicy } from './policy.js'
export { type BitcoinCoreOptions, type BitcoinCoreProvider, bitcoinCore } from './providers/bitcoinCore.js'
export { type EsploraOptions, esplora } from './providers/esplora.js'
export { psbtFromUnsignedTransaction } from './psbt/build.js'
export { createSighashCache, type Prevout, type SighashCache } from './transaction/sighash.js'
export type * from './types.js'
