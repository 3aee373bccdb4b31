export {
  type AccountAddress,
  type GetAccountAddressesParams,
  type VerifyGetAccountAddressesOptions,
  verifyGetAccountAddresses,
} from './getAccountAddresses.js'
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
