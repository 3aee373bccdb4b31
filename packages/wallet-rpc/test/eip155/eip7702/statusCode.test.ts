import { describe, expect, it } from 'vitest'
import { statusCode } from '../../../src/eip155/calls/status.js'

/** EIP-5792's status codes from the outcome of each transaction (anvil proves each in callsStatus.anvil.test.ts). */
describe('statusCode', () => {
  it.each([
    [['pending'], 0, 100],
    [['succeeded', 'pending'], 0, 100],
    [['succeeded'], 0, 200],
    [['succeeded', 'succeeded'], 0, 200],
    [['dropped'], 0, 400],
    [['dropped'], 2, 400],
    [['reverted'], 0, 500],
    [['reverted', 'dropped'], 0, 500],
    [['reverted'], 1, 500],
    [['succeeded', 'reverted'], 0, 600],
    [['succeeded', 'dropped'], 0, 600],
    [['succeeded'], 1, 600],
  ] as const)('%j with %i unsent → %i', (outcomes, unsent, code) => {
    expect(statusCode(outcomes, unsent)).toBe(code)
  })
})
