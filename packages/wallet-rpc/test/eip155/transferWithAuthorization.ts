/**
 * EIP-3009 `TransferWithAuthorization` (or `ReceiveWithAuthorization`) as the typed data a wallet receives:
 * USDC's domain (name, version, chainId, verifyingContract), the standard's own struct, values as strings.
 */
export const usdcDomainTypes = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

export const authorizationTypes = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
]

/** EIP-2612's `Permit` struct (the allowance a signature grants), as USDC's domain carries it. */
export const permitTypes = [
  { name: 'owner', type: 'address' },
  { name: 'spender', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
]

export function transferWithAuthorization(options: {
  chainId: number
  token: string
  from: string
  to: string
  value: bigint | string
  primaryType?: string
  domainTypes?: { name: string; type: string }[]
  validBefore?: string
}) {
  const primaryType = options.primaryType ?? 'TransferWithAuthorization'
  return {
    types: { EIP712Domain: options.domainTypes ?? usdcDomainTypes, [primaryType]: authorizationTypes },
    primaryType,
    domain: { name: 'USD Coin', version: '2', chainId: options.chainId, verifyingContract: options.token },
    message: {
      from: options.from,
      to: options.to,
      value: options.value.toString(),
      validAfter: '0',
      validBefore: options.validBefore ?? '4000000000',
      nonce: `0x${'11'.repeat(32)}`,
    },
  }
}
