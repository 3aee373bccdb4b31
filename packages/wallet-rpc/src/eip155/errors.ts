import { WalletRpcError, type WalletRpcErrorOptions } from '../core/errors.js'

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
