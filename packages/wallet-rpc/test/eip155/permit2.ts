/**
 * Permit2's `PermitSingle` as EIP-712 typed data, with the types Uniswap's Permit2 signs
 * (src/libraries/PermitHash.sol: PermitDetails, PermitSingle) and its domain (name `Permit2`, no version).
 */
export const permit2Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** Permit2's EIP-712 domain: a name and no version. */
const permit2DomainType = [
  { name: 'name', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

export function permit2SingleTypedData(
  chainId: number,
  message: {
    details: { token: string; amount: string; expiration: number | string; nonce: number | string }
    spender: string
    sigDeadline: string
  },
) {
  return {
    types: {
      EIP712Domain: permit2DomainType,
      PermitDetails: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint160' },
        { name: 'expiration', type: 'uint48' },
        { name: 'nonce', type: 'uint48' },
      ],
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
    },
    primaryType: 'PermitSingle',
    domain: { name: 'Permit2', chainId, verifyingContract: permit2Address },
    message,
  }
}

/** Permit2's `PermitTransferFrom` (a signature transfer: `spender` may move `amount` once) as EIP-712 typed data. */
export function permit2TransferTypedData(
  chainId: number,
  message: { token: string; amount: string; spender: string; nonce: string; deadline: string },
) {
  return {
    types: {
      EIP712Domain: permit2DomainType,
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      PermitTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'PermitTransferFrom',
    domain: { name: 'Permit2', chainId, verifyingContract: permit2Address },
    message: {
      permitted: { token: message.token, amount: message.amount },
      spender: message.spender,
      nonce: message.nonce,
      deadline: message.deadline,
    },
  }
}
