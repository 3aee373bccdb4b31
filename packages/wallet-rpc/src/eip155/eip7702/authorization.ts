import type { Address, Hex, SignedAuthorization } from 'viem'
import { ProviderError } from '../../core/errors.js'
import type { Eip155Signer } from '../keys.js'
import { recoverSigner } from '../recoverSigner.js'
import { hashAuthorization, hexToBytes, isAddressEqual } from '../viemUtils.js'

/**
 * The EIP-7702 authorization of a self-sponsored type-4 transaction: the sender's nonce is incremented
 * before the authorization list is processed, so the authorization carries the transaction's nonce + 1.
 * Always for this one chain (chain id 0 would let anyone replay the delegation on every chain).
 */
export async function signSelfAuthorization(
  signer: Eip155Signer,
  parameters: { chainId: number; delegate: Address; transactionNonce: number },
): Promise<SignedAuthorization> {
  if (parameters.chainId <= 0) throw new Error('an EIP-7702 authorization must name one chain')
  if (signer.sign === undefined)
    throw new ProviderError(
      'the key provider cannot sign EIP-7702 authorizations (its account has no `sign`)',
    )
  const authorization = {
    chainId: parameters.chainId,
    address: parameters.delegate,
    nonce: parameters.transactionNonce + 1,
  }
  const hash = hashAuthorization(authorization)
  const signature = await signer.sign({ hash })
  // Our own signers and `accountKeys`' checked ones already recover-check; this guards any other signer.
  const recovered = recoverSigner(hexToBytes(hash), signature)
  if (recovered === undefined || !isAddressEqual(recovered, signer.address))
    throw new ProviderError('the key provider returned an authorization signature for another key')
  const v = Number.parseInt(signature.slice(130), 16)
  return {
    ...authorization,
    r: `0x${signature.slice(2, 66)}` as Hex,
    s: `0x${signature.slice(66, 130)}` as Hex,
    yParity: v === 0 || v === 27 ? 0 : 1,
  }
}

/** One authorization of a signed type-4 transaction, as viem's `parseTransaction` reads it. */
export type ParsedAuthorization = {
  chainId: number
  address: Address
  nonce: number
  r?: Hex | undefined
  s?: Hex | undefined
  yParity?: number | undefined
}

/**
 * The authority of an EIP-7702 authorization: the account whose key signed keccak256(0x05 ‖
 * rlp([chain_id, address, nonce])), recovered from the signature — never read from a field a dapp could
 * fill. Undefined when it recovers to no account (a bad point, or a high `s`, which EIP-7702 makes invalid).
 */
export function recoverAuthority(authorization: ParsedAuthorization): Address | undefined {
  const { r, s, yParity } = authorization
  if (r === undefined || s === undefined || (yParity !== 0 && yParity !== 1)) return undefined
  const hash = hashAuthorization({
    chainId: authorization.chainId,
    address: authorization.address,
    nonce: authorization.nonce,
  })
  const signature = `0x${r.slice(2).padStart(64, '0')}${s.slice(2).padStart(64, '0')}0${yParity}` as Hex
  return recoverSigner(hexToBytes(hash), signature)
}
