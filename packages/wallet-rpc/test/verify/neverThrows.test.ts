import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { verifiers } from '../../src/verify/index.js'

// Dapps call these on whatever a wallet sent back: junk must give { valid: false, reason }, never an exception.
const junk = fc.oneof(
  fc.anything(),
  fc.string(),
  fc.array(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789abcdef') }), fc.integer())),
  fc.record({
    address: fc.string(),
    signature: fc.string(),
    psbt: fc.base64String(),
    txid: fc.string({ unit: fc.constantFrom(...'0123456789abcdef') }),
  }),
  fc.dictionary(
    fc.constantFrom('rawTransaction', 'publicKey', 'stateInit', 'domain', 'chainId', 'now'),
    fc.anything(),
  ),
)

describe('every verifier', () => {
  for (const [namespace, table] of Object.entries(verifiers)) {
    for (const [method, verify] of Object.entries(table)) {
      it(`${namespace} ${method} never throws and answers invalid on junk`, () => {
        fc.assert(
          fc.property(junk, junk, junk, (params, result, options) => {
            const verdict = verify(params, result, options)
            expect(verdict.valid).toBe(false)
            expect(typeof (verdict as { reason?: unknown }).reason).toBe('string')
          }),
          { numRuns: 300 },
        )
      })
    }
  }
})
