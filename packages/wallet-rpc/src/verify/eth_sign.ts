// eip155 `eth_sign`: EIP-191-prefixed, as execution-apis defines it (never a raw-hash signature).
import { checkPrefixedSignature } from './personal_sign.js'
import { fail, guarded, type VerifyResult } from './result.js'

/** `eth_sign` params are `[address, message]`, the message hex data. Never throws. */
export function verifyEthSign(params: unknown, result: unknown): VerifyResult {
  return guarded(() => {
    if (!Array.isArray(params)) fail('params are not an array')
    if (typeof params[1] !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(params[1]))
      fail('eth_sign message must be hex data')
    checkPrefixedSignature(params[1], params[0], result)
  })
}
