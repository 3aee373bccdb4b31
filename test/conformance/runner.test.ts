import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type CaseResult,
  createBuiltinHandler,
  defaultVectorsDir,
  type HandlerFactory,
  loadVectors,
  runConformance,
} from '../../src/conformance/index.js'
import { brokenWallets } from './brokenWallets.js'

const failing = (results: CaseResult[]) =>
  results.filter((r) => r.outcome === 'fail').map((r) => r.label.replace(/ #\d+ /, ': '))

describe('wallet-rpc conformance', () => {
  it('loads only conformance files, each with a source and a licence', () => {
    const vectors = loadVectors()
    // Every conformance file of every namespace folder, listed nowhere (14 + the six solana methods, + any new).
    const marked = readdirSync(defaultVectorsDir(), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.json'))
      .filter((file) =>
        readFileSync(join(defaultVectorsDir(), file), 'utf8').includes('"wallet-rpc-conformance/1"'),
      )
    expect(vectors.map((v) => v.file).sort()).toEqual(marked.sort())
    expect(vectors.length).toBeGreaterThanOrEqual(22)
    const cases = vectors.reduce((n, v) => n + v.vector.cases.length, 0)
    expect(cases).toBeGreaterThanOrEqual(60)
    for (const { vector } of vectors) expect(vector.source.length * vector.license.length).toBeGreaterThan(0)
    const invalid = vectors.flatMap((v) => v.vector.cases).filter((c) => c.expect.error !== undefined)
    expect(invalid.length).toBeGreaterThan(30)
  })

  it('the built-in handler passes every vector, local chains included', { timeout: 240_000 }, async () => {
    const summary = await runConformance()
    expect(failing(summary.results)).toEqual([])
    expect(summary.pending).toBe(0)
    expect(summary.passed).toBe(summary.results.length)
  })

  for (const [name, wallet] of Object.entries(brokenWallets)) {
    it(`fails exactly its cases: ${name} (${wallet.rule})`, { timeout: 120_000 }, async () => {
      const summary = await runConformance({ createHandler: wallet.createHandler, filter: wallet.filter })
      expect(failing(summary.results)).toEqual(wallet.fails)
      expect(summary.pending).toBe(0)
    })
  }

  it('fails a wallet that ignores the user', { timeout: 60_000 }, async () => {
    const ignoresUser: HandlerFactory = (config) => createBuiltinHandler({ ...config, approve: 'all' })
    const rejected = await runConformance({
      createHandler: ignoresUser,
      filter: 'the user rejects',
      skipChains: true,
    })
    expect(rejected.failed).toBe(rejected.results.length - rejected.pending)
    expect(rejected.failed).toBeGreaterThanOrEqual(5)
  })

  it('fails a wallet that throws', { timeout: 60_000 }, async () => {
    const throwing: HandlerFactory = () => async () => {
      throw new Error('boom')
    }
    const thrown = await runConformance({
      createHandler: throwing,
      filter: 'eip155/eth_sign ',
      skipChains: true,
    })
    expect(thrown.failed).toBe(3)
    expect(thrown.results[0]?.reason).toBe('the handler threw: boom')
  })
})
