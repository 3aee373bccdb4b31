export {
  clusterName,
  type SolanaChainId,
  solanaChains,
  solanaDevnet,
  solanaLocalnet,
  solanaMainnet,
  solanaPublicChains,
  solanaTestnet,
} from './chains.js'
export { type SolanaConnectPaymentsOptions, solanaConnectPayments } from './connectPayments.js'
export type { SolanaPolicy } from './context.js'
export { decodeBase64, encodeBase64, encodeShortVec } from './encoding.js'
export {
  checkedSigner,
  type SolanaKeys,
  type SolanaMnemonicOptions,
  type SolanaSigner,
  slip10Ed25519,
  solanaKeys,
  solanaPath,
} from './keys.js'
export {
  type SolanaAccount,
  solana_getAccounts,
  solanaGetAccountsParams,
} from './methods/solana_getAccounts.js'
export { solana_requestAccounts, solanaRequestAccountsParams } from './methods/solana_requestAccounts.js'
export {
  type SolanaSignAllTransactionsResult,
  solana_signAllTransactions,
  solanaSignAllTransactionsParams,
} from './methods/solana_signAllTransactions.js'
export {
  type SolanaSignAndSendTransactionResult,
  solana_signAndSendTransaction,
  solanaSignAndSendTransactionParams,
} from './methods/solana_signAndSendTransaction.js'
export {
  type SolanaSignMessageResult,
  solana_signMessage,
  solanaSignMessageParams,
} from './methods/solana_signMessage.js'
export {
  type SolanaSignTransactionResult,
  solana_signTransaction,
  solanaSignTransactionParams,
} from './methods/solana_signTransaction.js'
export { type SolanaNamespaceOptions, solana } from './namespace.js'
export type {
  AccountInfo,
  SendOptions,
  SimulationResult,
  SolanaChainProvider,
  TokenBalance,
} from './provider.js'
export { type SolanaRpcOptions, solanaRpc } from './providers/solanaRpc.js'
export {
  type AddressTableLookup,
  type CompiledInstruction,
  decodeMessage,
  decodeTransaction,
  encodeTransaction,
  type MessageHeader,
  type SolanaMessage,
  type SolanaTransaction,
} from './transaction.js'
