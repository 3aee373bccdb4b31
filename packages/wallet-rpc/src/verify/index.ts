// wallet-rpc/verify: the dapp side. Every function checks a wallet's answer against the request (and the
// session) and returns `{ valid, reason? }`; none throws. They are written from the specs, independently of
// the wallet code in this package (no import from the namespaces), so that they act as a second implementation.

export { cacaoMessage, type VerifyCacaoOptions, verifyCacao } from './cacao.js'
export { verifyEthSendRawTransaction } from './eth_sendRawTransaction.js'
export { type VerifySentTransactionOptions, verifyEthSendTransaction } from './eth_sendTransaction.js'
export { verifyEthSign } from './eth_sign.js'
export { type VerifyTransactionOptions, verifyEthSignTransaction } from './eth_signTransaction.js'
export { type VerifyTypedDataOptions, verifyEthSignTypedData } from './eth_signTypedData.js'
export {
  type AccountAddress,
  type GetAccountAddressesParams,
  type VerifyGetAccountAddressesOptions,
  verifyGetAccountAddresses,
} from './getAccountAddresses.js'
export { verifyPersonalSign } from './personal_sign.js'
export type { VerifyResult } from './result.js'
export {
  type SendTransferParams,
  type VerifySendTransferOptions,
  verifySendTransfer,
} from './sendTransfer.js'
export {
  bip322MessageHash,
  bitcoinMessageHash,
  type SignMessageParams,
  type SignMessageResult,
  type VerifySignMessageOptions,
  verifyBip137,
  verifyBip322,
  verifySignMessage,
} from './signMessage.js'
export {
  type SignInput,
  type SignPsbtParams,
  type SignPsbtResult,
  type VerifySignPsbtOptions,
  verifySignPsbt,
} from './signPsbt.js'
export {
  type VerifySolanaOptions,
  verifySolanaSignAllTransactions,
  verifySolanaSignAndSendTransaction,
  verifySolanaSignMessage,
  verifySolanaSignTransaction,
} from './solana.js'
export { type Verifier, verifiers, verifiersByName } from './table.js'
export {
  type TonMessageRequest,
  type TonSendMessageParams,
  type VerifyTonSendMessageOptions,
  verifyTonSendMessage,
} from './ton_sendMessage.js'
export {
  crc32,
  type TonSignDataPayload,
  tonSignDataDigest,
  type VerifyTonSignDataOptions,
  verifyTonSignData,
} from './ton_signData.js'
export { type TonProof, tonProofDigest, type VerifyTonProofOptions, verifyTonProof } from './tonProof.js'
export {
  type ChainReceipt,
  type VerifyCallsStatusOptions,
  verifyWalletGetCallsStatus,
} from './wallet_getCallsStatus.js'
export { type VerifySendCallsOptions, verifyWalletSendCalls } from './wallet_sendCalls.js'
