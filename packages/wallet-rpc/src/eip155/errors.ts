import {
  type JsonRpcErrorObject,
  UserRejectedError,
  WalletRpcError,
  type WalletRpcErrorOptions,
} from '../core/errors.js'

/**
 * EIP-5792's error codes (eips.ethereum.org/EIPS/eip-5792, "Error Codes") and EIP-3085/3326's 4902. viem
 * maps each to its own error class (`UnsupportedNonOptionalCapabilityError`, `UnsupportedChainIdError`, …),
 * so dapps tell them apart by code; `data.reason` says what exactly was refused.
 */
function eip5792Error(code: number, message: string) {
  return class extends WalletRpcError {
    static readonly code = code
    constructor(reason: string, options: WalletRpcErrorOptions & { extra?: Record<string, unknown> } = {}) {
      const { extra, ...rest } = options
      super(code, message, { data: { reason, ...extra }, ...rest })
    }
  }
}

/** 5700: a capability the dapp marked non-optional is not one this wallet supports. */
export const UnsupportedCapabilityError = eip5792Error(5700, 'Unsupported non-optional capability.')
/** 5710: `wallet_sendCalls` names a chain this wallet does not serve. */
export const UnsupportedCallsChainError = eip5792Error(5710, 'Unsupported chain id.')
/** 5720: a batch with this id was already submitted. */
export const DuplicateCallsIdError = eip5792Error(5720, 'Duplicate ID.')
/** 5730: no batch with this id. */
export const UnknownCallsIdError = eip5792Error(5730, 'Unknown bundle id.')
/** 5740: more calls than the wallet sends in one batch. */
export const BatchTooLargeError = eip5792Error(5740, 'Batch too large.')
/** 5750: the user declined the review that asked to upgrade their account (EIP-7702), so nothing was sent. */
export const UpgradeRejectedError = eip5792Error(5750, 'Rejected upgrade.')
/** 5760: the dapp required atomic execution and this wallet cannot give it on this chain for this account. */
export const AtomicityNotSupportedError = eip5792Error(5760, 'Atomicity not supported.')
/** 4902: `wallet_switchEthereumChain` to a chain the wallet does not know (EIP-3326; add it first). */
export const UnrecognizedChainError = eip5792Error(4902, 'Unrecognized chain ID.')

export type AtomicityNotSupportedError = InstanceType<typeof AtomicityNotSupportedError>

/**
 * A user's refusal as EIP-1193 spells it (4001), with words ethers recognises too. ethers v6 turns only 4001
 * into `ACTION_REJECTED` (BrowserProvider; its JSON-RPC path matches "user denied" in the message) and any
 * other code, WalletConnect's 5000 included, into `UNKNOWN_ERROR`; viem reads 4001 and 5000 alike.
 */
const eip1193UserRejected = { code: 4001, message: 'User denied the request.' } as const

/**
 * The namespace's `describeError`: WalletConnect's 5000 "User rejected." (the router's answer to a declined
 * review, and `wallet_addEthereumChain`'s refusal) goes out as EIP-1193's 4001; every other answer, EIP-5792's
 * 5750 "Rejected upgrade" included, is left as it is.
 */
export function eip155ErrorAnswer(error: JsonRpcErrorObject): JsonRpcErrorObject {
  return error.code === UserRejectedError.code ? { ...error, ...eip1193UserRejected } : error
}
