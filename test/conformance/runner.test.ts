import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type CaseResult,
  createBuiltinHandler,
  defaultVectorsDir,
  type HandlerFactory,
  keysOf,
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

  it('marks each case as needing the fixed keys or any keys: computed, with the explicit field where it is wrong', () => {
    const need = new Map(
      loadVectors().flatMap(({ file, vector }) =>
        vector.cases.map((c) => [`${file} ${c.name}`, keysOf(vector, c)] as const),
      ),
    )
    expect({
      exact: need.get('eip155/personal_sign.json hex message "hello world" (viem vector)'),
      otherAccount: need.get("eip155/personal_sign.json account 1 (m/44'/60'/0'/0/1, anvil dev account #1)"),
      otherContract: need.get('ton/ton_signData.json v4R2 wallet'),
      psbtOverFixedCoins: need.get('bip122/signPsbt.json one P2WPKH input'),
      p2shAddress: need.get('bip122/signMessage.json ecdsa, P2SH-P2WPKH address'),
      verifiedOnly: need.get('bip122/signMessage.json bip322, P2WPKH'),
      refusal: need.get('bip122/signPsbt.json not a PSBT'),
      gapLimit: need.get('bip122/getAccountAddresses.json mainnet account, no provider (static minimum)'),
    }).toEqual({
      exact: 'fixed',
      otherAccount: 'fixed',
      otherContract: 'fixed',
      psbtOverFixedCoins: 'fixed',
      p2shAddress: 'fixed',
      verifiedOnly: 'any',
      refusal: 'any',
      gapLimit: 'any',
    })
    const values = [...need.values()]
    const count = (keys: string) => values.filter((value) => value === keys).length
    expect(count('any')).toBeGreaterThan(count('fixed'))
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
