// Every verifier by namespace and method name, for tools (the conformance runner, the demo) that pick the
// check from a request. Options differ per method; each function documents its own.
import { verifyEthSendRawTransaction } from './eth_sendRawTransaction.js'
import { verifyEthSendTransaction } from './eth_sendTransaction.js'
import { verifyEthSign } from './eth_sign.js'
import { verifyEthSignTransaction } from './eth_signTransaction.js'
import { verifyEthSignTypedData } from './eth_signTypedData.js'
import { verifyGetAccountAddresses } from './getAccountAddresses.js'
import { verifyPersonalSign } from './personal_sign.js'
import type { VerifyResult } from './result.js'
import { verifySendTransfer } from './sendTransfer.js'
import { verifySignMessage } from './signMessage.js'
import { verifySignPsbt } from './signPsbt.js'
import {
  verifySolanaSignAllTransactions,
  verifySolanaSignAndSendTransaction,
  verifySolanaSignMessage,
  verifySolanaSignTransaction,
} from './solana.js'
import { verifyTonSendMessage } from './ton_sendMessage.js'
import { verifyTonSignData } from './ton_signData.js'
import { verifyWalletGetCallsStatus } from './wallet_getCallsStatus.js'
import { verifyWalletSendCalls } from './wallet_sendCalls.js'

// biome-ignore lint/suspicious/noExplicitAny: each verifier takes its own params and options shape.
export type Verifier = (params: any, result: unknown, options?: any) => VerifyResult

/** `verifiers['bip122']['signMessage']`, `verifiers['eip155']['eth_signTypedData_v4']`, … */
export const verifiers: Readonly<
  Record<'bip122' | 'ton' | 'eip155' | 'solana', Readonly<Record<string, Verifier>>>
> = {
  bip122: {
    signMessage: verifySignMessage,
    signPsbt: verifySignPsbt,
    sendTransfer: verifySendTransfer,
    getAccountAddresses: verifyGetAccountAddresses,
  },
  ton: {
    ton_signData: verifyTonSignData,
    ton_sendMessage: verifyTonSendMessage,
  },
  eip155: {
    personal_sign: verifyPersonalSign,
    eth_sign: verifyEthSign,
    eth_signTypedData: verifyEthSignTypedData,
    eth_signTypedData_v3: verifyEthSignTypedData,
    eth_signTypedData_v4: verifyEthSignTypedData,
    eth_signTransaction: verifyEthSignTransaction,
    eth_sendTransaction: verifyEthSendTransaction,
    eth_sendRawTransaction: verifyEthSendRawTransaction,
    wallet_sendCalls: verifyWalletSendCalls,
    wallet_getCallsStatus: verifyWalletGetCallsStatus,
  },
  solana: {
    solana_signMessage: verifySolanaSignMessage,
    solana_signTransaction: verifySolanaSignTransaction,
    solana_signAllTransactions: verifySolanaSignAllTransactions,
    solana_signAndSendTransaction: verifySolanaSignAndSendTransaction,
  },
}

/** Verifiers by exported function name (what a test vector's verification rule names). */
export const verifiersByName: Readonly<Record<string, Verifier>> = {
  verifySignMessage,
  verifySignPsbt,
  verifySendTransfer,
  verifyGetAccountAddresses,
  verifyTonSignData,
  verifyTonSendMessage,
  verifyPersonalSign,
  verifyEthSign,
  verifyEthSignTypedData,
  verifyEthSignTransaction,
  verifyEthSendTransaction,
  verifyEthSendRawTransaction,
  verifyWalletSendCalls,
  verifyWalletGetCallsStatus,
  verifySolanaSignMessage,
  verifySolanaSignTransaction,
  verifySolanaSignAllTransactions,
  verifySolanaSignAndSendTransaction,
}
