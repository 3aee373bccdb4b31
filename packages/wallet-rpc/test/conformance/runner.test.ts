import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { XMLValidator } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import {
  type CaseResult,
  createBuiltinHandler,
  defaultVectorsDir,
  type Handler,
  type HandlerFactory,
  jsonReport,
  junitReport,
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

  it('every bip122, TON and eip155 case says in its file whether it needs the fixed keys or works with any', () => {
    const cases = loadVectors()
      .filter(({ file }) => /^(bip122|ton|eip155)\//.test(file))
      .flatMap(({ vector }) => vector.cases)
    expect(cases.length).toBeGreaterThan(120)
    expect(cases.filter((c) => c.keys !== 'fixed' && c.keys !== 'any').map((c) => c.name)).toEqual([])
  })

  it("the rule for an unmarked case (third parties' vectors): exact bytes or other keys need the fixed keys", () => {
    const rule = new Map(
      loadVectors().flatMap(({ file, vector }) =>
        vector.cases.map(({ keys: _marked, ...c }) => [`${file} ${c.name}`, keysOf(vector, c)] as const),
      ),
    )
    expect({
      exact: rule.get('eip155/personal_sign.json hex message "hello world" (viem vector)'),
      otherAccount: rule.get("eip155/personal_sign.json account 1 (m/44'/60'/0'/0/1, anvil dev account #1)"),
      otherContract: rule.get('ton/ton_signData.json v4R2 wallet'),
      psbt: rule.get('bip122/signPsbt.json one P2WPKH input'),
      verifiedOnly: rule.get('bip122/signMessage.json bip322, P2WPKH'),
      refusal: rule.get('eip155/personal_sign.json the user rejects'),
    }).toEqual({
      exact: 'fixed',
      otherAccount: 'fixed',
      otherContract: 'fixed',
      psbt: 'fixed',
      verifiedOnly: 'any',
      refusal: 'any',
    })
  })

  it('marks each case as needing the fixed keys or any keys, the explicit field where the rule is wrong', () => {
    const need = new Map(
      loadVectors().flatMap(({ file, vector }) =>
        vector.cases.map((c) => [`${file} ${c.name}`, keysOf(vector, c)] as const),
      ),
    )
    expect({
      exact: need.get('eip155/personal_sign.json hex message "hello world" (viem vector)'),
      otherAccount: need.get("eip155/personal_sign.json account 1 (m/44'/60'/0'/0/1, anvil dev account #1)"),
      otherContract: need.get('ton/ton_signData.json v4R2 wallet'),
      psbtOverFixedCoins: need.get(
        'bip122/signPsbt.json one P2TR key-path input (tweaked key, DEFAULT sighash)',
      ),
      psbtOverTheAccount: need.get('bip122/signPsbt.json one P2WPKH input'),
      p2shAddress: need.get('bip122/signMessage.json ecdsa, P2SH-P2WPKH address'),
      verifiedOnly: need.get('bip122/signMessage.json bip322, P2WPKH'),
      refusal: need.get('bip122/signPsbt.json not a PSBT'),
      gapLimit: need.get('bip122/getAccountAddresses.json mainnet account, no provider (static minimum)'),
    }).toEqual({
      exact: 'fixed',
      otherAccount: 'fixed',
      otherContract: 'fixed',
      psbtOverFixedCoins: 'fixed',
      psbtOverTheAccount: 'any',
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

  it("the sending methods' refusals made before any chain access pass with no chain configured", {
    timeout: 120_000,
  }, async () => {
    // Unmarked `chain`, so they run without a provider here and in every other runtime (test/platforms).
    const sending = new Set([
      'ton_sendMessage',
      'eth_sendTransaction',
      'eth_sendRawTransaction',
      'sendTransfer',
    ])
    const summary = await runConformance({
      skipChains: true,
      select: (vector, testCase) => sending.has(vector.method) && testCase.chain === undefined,
    })
    expect(failing(summary.results)).toEqual([])
    expect(summary.pending).toBe(0)
    const refusals = (method: string) =>
      summary.results.filter((r) => r.method === method && r.expected.error !== undefined).length
    expect({
      ton_sendMessage: refusals('ton_sendMessage'),
      eth_sendTransaction: refusals('eth_sendTransaction'),
      eth_sendRawTransaction: refusals('eth_sendRawTransaction'),
      sendTransfer: refusals('sendTransfer'),
    }).toEqual({ ton_sendMessage: 11, eth_sendTransaction: 2, eth_sendRawTransaction: 2, sendTransfer: 11 })
  })

  for (const [name, wallet] of Object.entries(brokenWallets)) {
    it(`fails exactly its cases: ${name} (${wallet.rule})`, { timeout: 120_000 }, async () => {
      const summary = await runConformance({ createHandler: wallet.createHandler, filter: wallet.filter })
      expect(failing(summary.results)).toEqual(wallet.fails)
      expect(summary.pending).toBe(0)
    })
  }

  it('a MODULE that answers garbage, a wrong id, a BigInt, a cycle or nothing: a verdict per case, reports still serialize', {
    timeout: 60_000,
  }, async () => {
    // One misbehaviour per personal_sign case, in order; the cases after the last answer correctly.
    const answers: ((id: number) => unknown)[] = [
      () => '<html>502 Bad Gateway</html>',
      (id) => ({ jsonrpc: '2.0', id: id + 1000, result: '0x' }),
      () => undefined,
      (id) => ({ jsonrpc: '2.0', id, result: 10n ** 30n }),
      (id) => {
        const cycle: Record<string, unknown> = { jsonrpc: '2.0', id }
        cycle.result = cycle
        return cycle
      },
      () => new Promise(() => {}),
    ]
    let caseIndex = 0
    const misbehaving: HandlerFactory = async (config) => {
      const inner = await createBuiltinHandler(config)
      const answer = answers[caseIndex++]
      return async (input) =>
        answer ? answer(input.request.id) : (inner as { handle: (i: typeof input) => unknown }).handle(input)
    }
    const summary = await runConformance({
      createHandler: misbehaving,
      filter: 'eip155/personal_sign',
      skipChains: true,
      timeoutMs: 2_000,
    })
    expect(summary.results.slice(0, 6).map((r) => `${r.outcome}: ${r.reason}`)).toEqual([
      'fail: the answer is not a JSON-RPC response',
      "fail: the answer's id 1002 is not the request's 2",
      'fail: the answer is not a JSON-RPC response',
      'fail: verifyPersonalSign: signature is not 65 bytes of 0x-prefixed hex',
      expect.stringMatching(/^fail: result "\[cycle\]" is not the expected "0x/),
      'timeout: no answer from the wallet within 2000 ms',
    ])
    expect(summary.results[3]?.got).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: '1000000000000000000000000000000n',
    })
    expect(summary.results.slice(6).every((r) => r.outcome === 'pass')).toBe(true)
    expect(summary.results.length).toBeGreaterThan(6)
    expect(JSON.stringify(jsonReport(summary, 'module'))).toContain('1000000000000000000000000000000n')
    expect(XMLValidator.validate(junitReport(summary, 'module'))).toBe(true)
  })

  it('a factory that returns neither a function nor a handler object fails each case with that reason', {
    timeout: 60_000,
  }, async () => {
    for (const [returned, reason] of [
      [null, 'createHandler(config) returned null, not a handle function or an object with handle()'],
      [
        {},
        'createHandler(config) returned an object without handle(), not a handle function or an object with handle()',
      ],
      [42, 'createHandler(config) returned number, not a handle function or an object with handle()'],
    ] as const) {
      const summary = await runConformance({
        createHandler: () => returned as unknown as Handler,
        filter: 'eip155/eth_sign ',
        skipChains: true,
      })
      expect(summary.results.map((r) => `${r.outcome}: ${r.reason}`)).toEqual(
        Array(3).fill(`fail: ${reason}`),
      )
    }
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
