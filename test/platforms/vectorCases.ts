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
 * Per case, whether another runtime's answer equals Node's. BIP-340 signatures carry fresh auxiliary
 * randomness (as BIP-340 recommends), so a P2TR answer cannot equal Node's byte for byte; there the
 * vector's wallet-rpc/verify check must accept both.
 */
export function agreementWithNode(cases: Case[], outcome: Outcome, node: Outcome): boolean[] {
  return cases.map((_, i) => {
    const [theirs, ours] = [outcome.results[i], node.results[i]]
    if (theirs === undefined || ours === undefined) return false
    return (
      JSON.stringify(theirs) === JSON.stringify(ours) ||
      (theirs.verdict?.valid && ours.verdict?.valid) === true
    )
  })
}

/** Another runtime's answers equal Node's, case by case (a failure names the differing cases). */
export function expectSameAsNode(cases: Case[], outcome: Outcome, node: Outcome): void {
  expect(outcome.results).toHaveLength(cases.length)
  expect(outcome.internalErrors).toEqual([])
  const agreement = agreementWithNode(cases, outcome, node)
  expect(cases.filter((_, i) => !agreement[i]).map((testCase) => testCase.name)).toEqual([])
  expect(JSON.stringify(outcome.sessions)).toBe(JSON.stringify(node.sessions))
}

/** One check of a summary row: the outcome of a context and its per-case agreement with Node. */
type RowCheck = (outcome: Outcome, agreement: boolean[]) => boolean

/**
 * The results per method and runtime context, as a Markdown table: a row per namespace method (bip122
 * `signMessage` split by protocol, ecdsa when the params name none; refusals apart), a column per context, a
 * cell `pass` when every case of the row answered as in Node (`FAIL k/n` otherwise); then a row per
 * wallet-rpc/verify function run in the context, the session properties, and the backends each context chose.
 * What the closing note reports.
 */
export function agreementTable(cases: Case[], node: Outcome, outcomes: Map<string, Outcome>): string {
  const rows = new Map<string, RowCheck[]>()
  const verifyRows = new Map<string, RowCheck[]>()
  const addTo = (table: Map<string, RowCheck[]>, row: string, check: RowCheck) =>
    table.set(row, [...(table.get(row) ?? []), check])
  cases.forEach((testCase, i) => {
    const { chainId, method, params } = testCase.request
    const namespace = chainId.split(':')[0]
    const refused = 'error' in (node.results[i]!.answer as object)
    const protocol =
      namespace === 'bip122' && method === 'signMessage'
        ? ` ${(params as { protocol?: string }).protocol ?? 'ecdsa'}`
        : ''
    const row = refused ? `${namespace} ${method} (refusals)` : `${namespace} ${method}${protocol}`
    addTo(rows, row, (_, agreement) => agreement[i] === true)
    if (testCase.verify !== undefined && !refused)
      addTo(
        verifyRows,
        `verify.${testCase.verify.function}`,
        (outcome) => outcome.results[i]?.verdict?.valid === true,
      )
  })
  for (const [row, checks] of verifyRows) rows.set(row, checks)
  addTo(
    rows,
    'sessionProperties',
    (outcome) => JSON.stringify(outcome.sessions) === JSON.stringify(node.sessions),
  )
  addTo(rows, 'no internal error (onError)', (outcome) => outcome.internalErrors.length === 0)
  const contexts = [...outcomes].map(([name, outcome]) => ({
    name,
    outcome,
    agreement: agreementWithNode(cases, outcome, node),
  }))
  const lines = [
    `| method (cases) | ${contexts.map(({ name }) => name).join(' | ')} |`,
    `|---|${contexts.map(() => '---|').join('')}`,
  ]
  for (const [row, checks] of rows) {
    const cells = contexts.map(({ outcome, agreement }) => {
      const failed = checks.filter((check) => !check(outcome, agreement)).length
      return failed === 0 ? 'pass' : `FAIL ${failed}/${checks.length}`
    })
    lines.push(`| ${row} (${checks.length}) | ${cells.join(' | ')} |`)
  }
  const backends = contexts.map(({ outcome }) => Object.values(outcome.backends ?? {}).join(', '))
  lines.push(`| backends() | ${backends.join(' | ')} |`)
  return lines.join('\n')
}
