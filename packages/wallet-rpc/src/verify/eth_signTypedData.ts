// eip155 `eth_signTypedData` (and `_v3`, `_v4`): an EIP-712 signature by the named address, for a domain
// whose chainId (when present) is the request's chain.
import type { Hex, TypedDataDefinition } from 'viem'
import { hashTypedData } from 'viem/utils'
import { checkedAddress, checkedSignature, recoverSigner, sameAddress } from './internal/evm.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type VerifyTypedDataOptions = {
  /** The request's chain (`eip155:<chainId>`): a domain naming another chain is refused. */
  chainId?: number
}

/** Params are `[address, typedData]`, typed data as an object or a JSON string. Never throws. */
export function verifyEthSignTypedData(
  params: unknown,
  result: unknown,
  options: VerifyTypedDataOptions = {},
): VerifyResult {
  return guarded(() => {
    if (!Array.isArray(params)) fail('params are not an array')
    const signer = checkedAddress(params[0], 'address')
    const typedData = typeof params[1] === 'string' ? JSON.parse(params[1]) : params[1]
    if (!isRecord(typedData) || !isRecord(typedData.types) || !isRecord(typedData.domain ?? {})) {
      fail('typed data needs types, primaryType, domain and message')
    }
    const domainChain = isRecord(typedData.domain) ? typedData.domain.chainId : undefined
    if (domainChain !== undefined && options.chainId !== undefined) {
      const parsed =
        typeof domainChain === 'string'
          ? Number.parseInt(domainChain, domainChain.startsWith('0x') ? 16 : 10)
          : Number(domainChain)
      if (parsed !== options.chainId)
        fail(`domain chainId ${String(domainChain)} is not the request's chain ${options.chainId}`)
    }
    const signature = checkedSignature(result)
    const signers = candidateHashes(typedData).map((hash) => recoverSigner(hash, signature))
    if (!signers.some((recovered) => sameAddress(recovered, signer))) {
      fail(`the signature is not ${signer}'s over this typed data`)
    }
  })
}

/** The EIP-712 digest; without an `EIP712Domain` type, both readings wallets use (inferred, MetaMask's empty). */
function candidateHashes(typedData: Record<string, unknown>): Hex[] {
  const definition = typedData as unknown as TypedDataDefinition
  const types = typedData.types as Record<string, unknown>
  if (Object.hasOwn(types, 'EIP712Domain')) return [hashTypedData(definition)]
  const hashes: Hex[] = []
  try {
    hashes.push(hashTypedData(definition))
  } catch {
    // An inferred domain that viem cannot encode; the empty-domain reading may still apply.
  }
  hashes.push(hashTypedData({ ...definition, types: { ...types, EIP712Domain: [] } } as TypedDataDefinition))
  return hashes
}
