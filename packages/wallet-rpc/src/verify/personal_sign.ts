// eip155 `personal_sign`: an EIP-191 signature by the named address over the message bytes.
import { hashMessage } from 'viem/utils'
import { checkedAddress, checkedSignature, messageBytes, recoverSigner, sameAddress } from './internal/evm.js'
import { fail, guarded, type VerifyResult } from './result.js'

/** `personal_sign` params are `[message, address]`. Never throws. */
export function verifyPersonalSign(params: unknown, result: unknown): VerifyResult {
  return guarded(() => {
    if (!Array.isArray(params)) fail('params are not an array')
    checkPrefixedSignature(params[0], params[1], result)
  })
}

export function checkPrefixedSignature(message: unknown, address: unknown, result: unknown): void {
  const signer = checkedAddress(address, 'address')
  const signature = checkedSignature(result)
  const recovered = recoverSigner(hashMessage(messageBytes(message)), signature)
  if (!sameAddress(recovered, signer)) fail(`signed by ${recovered}, expected ${signer}`)
}
