export {
  type Ed25519Backend,
  type Ed25519Key,
  ed25519,
  loadNodeEd25519,
  nobleEd25519,
  tweetnaclEd25519,
} from '../crypto/ed25519.js'
export { isTestnet, type TonChainId, tonChains } from './chains.js'
export {
  maxMessages,
  normalizedMessageHash,
  type TonWalletOptions,
  type TonWalletVersion,
  type TransferRequest,
  v5r1WalletId,
  type WalletContract,
  walletCodeHashes,
  walletContract,
} from './contracts.js'
export { emulationFailure, type TonTransactionSummary } from './emulation/outcome.js'
export { type TonMnemonicOptions, type TonSigner, tonKeys } from './keys.js'
export {
  type TonSendMessageOptions,
  ton_sendMessage,
  tonSendMessageParams,
} from './methods/ton_sendMessage.js'
export { type TonSignDataResult, ton_signData, tonSignDataParams } from './methods/ton_signData.js'
export { type TonNamespaceOptions, ton } from './namespace.js'
export { type TonapiOptions, tonapi } from './providers/tonapi.js'
export { type ToncenterOptions, toncenter } from './providers/toncenter.js'
export {
  crc32,
  type SignDataInput,
  type SignDataPayload,
  signDataCell,
  signDataDigest,
  signDataMessage,
  tep81Domain,
} from './signData.js'
export type {
  TonAccount,
  TonAccountState,
  TonChainProvider,
  TonEmulationFailure,
  TonEmulationMessage,
  TonEmulationRequest,
  TonEmulationResult,
  TonEmulator,
  TonJettonChange,
  TonNftMove,
} from './types.js'
