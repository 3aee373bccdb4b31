import { expect } from 'vitest'
import { type Expectation, loadVectors } from '../../src/conformance/vectors.js'
// @ts-expect-error: plain JavaScript (webpack, Vite and Babel take it without a TypeScript loader)
import { runCases } from './fixtures/vectorWallet.js'

/** What the browser and Hermes suites run: every conformance case that needs no chain. */
export type Case = {
  name: string
  config: Record<string, unknown>
  request: { chainId: string; origin?: string; method: string; params?: unknown }
  verify?: { function: string; options?: Record<string, unknown> }
}
export type Outcome = {
  results: Array<{ answer: unknown; verdict?: { valid: boolean; reason?: string } }>
  sessions: unknown[]
  backends: Record<string, string>
  /** Unexpected errors the wallet reported to `onError` (what -32603 hides from the dapp). */
  internalErrors: string[]
}

/** The verify check of an expectation, or of the first of its alternatives that has one. */
function verifyOf(expectation: Expectation): Pick<Case, 'verify'> {
  const verify = expectation.verify ?? expectation.oneOf?.find((alternative) => alternative.verify)?.verify
  return verify === undefined ? {} : { verify }
}

/** Every conformance case that needs no chain, as the vector wallet takes it. */
export function chainlessCases(): Case[] {
  return loadVectors().flatMap(({ vector }) =>
    vector.cases
      .filter((testCase) => testCase.chain === undefined && testCase.fund === undefined)
      .map((testCase) => ({
        name: `${vector.method}: ${testCase.name}`,
        config: { ...vector.wallet, ...testCase.wallet },
        request: testCase.request,
        ...verifyOf(testCase.expect),
      })),
  )
}

/** The same cases answered in this Node process. */
export async function nodeOutcome(cases: Case[]): Promise<Outcome> {
  return (await runCases(cases)) as Outcome
}

/** The portable backends a runtime without Node, WASM or injected crypto must have chosen. */
export const portableBackends = {
  secp256k1: '@bitcoinerlab/secp256k1',
  ed25519: 'tweetnacl',
  sha256: '@noble/hashes',
}

/**
 * Another runtime's answers equal Node's, case by case. BIP-340 signatures carry fresh auxiliary
 * randomness (as BIP-340 recommends), so a P2TR answer cannot equal Node's byte for byte; there the
 * vector's wallet-rpc/verify check must accept both.
 */
export function expectSameAsNode(cases: Case[], outcome: Outcome, node: Outcome): void {
  expect(outcome.results).toHaveLength(cases.length)
  expect(outcome.internalErrors).toEqual([])
  const bothVerified = (i: number) =>
    outcome.results[i]?.verdict?.valid === true && node.results[i]?.verdict?.valid === true
  const differing = cases.filter(
    (_, i) => JSON.stringify(outcome.results[i]) !== JSON.stringify(node.results[i]) && !bothVerified(i),
  )
  expect(differing.map((testCase) => testCase.name)).toEqual([])
  expect(JSON.stringify(outcome.sessions)).toBe(JSON.stringify(node.sessions))
}
