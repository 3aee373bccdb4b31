// `wallet-rpc conformance --exec`: the whole suite through the exec line protocol against our own CLI
// (`wallet-rpc handle --conformance`), the broken wallets as executables, and wallets that misbehave on the wire.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { runConformanceCommand } from '../../src/cli/conformance.js'
import {
  type CaseResult,
  execTransport,
  type JsonReport,
  junitReport,
  loadVectors,
  runConformance,
} from '../../src/conformance/index.js'
import { brokenWallets } from './brokenWallets.js'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const tsNode = `"${process.execPath}" --import tsx`
const ourCli = `${tsNode} "${here('../../src/cli/main.ts')}" handle --conformance`
const personalSignCases = loadVectors().find((v) => v.file === 'eip155/personal_sign.json')!.vector.cases
  .length
const failing = (results: CaseResult[]) =>
  results.filter((r) => r.outcome === 'fail').map((r) => r.label.replace(/ #\d+ /, ': '))

async function runExec(command: string, options: Parameters<typeof runConformance>[0] = {}) {
  const exec = execTransport(command)
  try {
    return await runConformance({ ...options, createHandler: exec.createHandler })
  } finally {
    await exec.stop()
  }
}

describe('wallet-rpc conformance --exec', () => {
  it('the whole suite passes through `wallet-rpc handle --conformance`, local chains included', {
    timeout: 300_000,
  }, async () => {
    const summary = await runExec(ourCli)
    expect(failing(summary.results)).toEqual([])
    expect(summary.pending + summary.timedOut).toBe(0)
    expect(summary.passed).toBe(summary.results.length)
    expect(summary.results.length).toBeGreaterThanOrEqual(118)
  })

  for (const [name, wallet] of Object.entries(brokenWallets)) {
    it(`the broken wallet ${name} as an executable fails exactly its cases`, {
      timeout: 120_000,
    }, async () => {
      const summary = await runExec(`${tsNode} "${here('fixtures/brokenWallet.ts')}" ${name}`, {
        filter: wallet.filter,
      })
      expect(failing(summary.results)).toEqual(wallet.fails)
      expect(summary.pending + summary.timedOut).toBe(0)
    })
  }

  describe('a wallet that misbehaves on the wire gets a verdict per case, and the run goes on', () => {
    const misbehaving = (mode: string) =>
      `"${process.execPath}" "${here('fixtures/misbehavingExec.mjs')}" ${mode}`
    const reasons = async (mode: string, timeoutMs?: number) => {
      const summary = await runExec(misbehaving(mode), {
        filter: 'eip155/personal_sign',
        skipChains: true,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      })
      expect(summary.results).toHaveLength(personalSignCases)
      return summary.results.map((r) => `${r.outcome}: ${r.reason}`)
    }

    it('garbage, a JSON line that is no response, a wrong id', { timeout: 60_000 }, async () => {
      expect(new Set(await reasons('garbage'))).toEqual(
        new Set([
          'fail: the wallet answered the request with a line that is not JSON: <html>502 Bad Gateway</html>',
        ]),
      )
      expect(new Set(await reasons('notRpc'))).toEqual(new Set(['fail: the answer lacks jsonrpc "2.0"']))
      const wrongId = await reasons('wrongId')
      expect(wrongId[0]).toBe("fail: the answer's id 1001 is not the request's 1")
      expect(wrongId.every((reason) => reason.startsWith("fail: the answer's id"))).toBe(true)
    })

    it('two answers to one request', { timeout: 60_000 }, async () => {
      const twice = await reasons('twice')
      expect(twice[0]).toBe(
        'fail: the wallet answered one request 2 times (then {"jsonrpc":"2.0","id":1,"error":{"code":5101,"message":"Unsupported method."}})',
      )
      for (const reason of twice) expect(reason).toMatch(/^fail: the wallet answered one request 2 times/)
    })

    it('a wallet that exits mid-run: that case fails, the next gets a fresh process', {
      timeout: 60_000,
    }, async () => {
      const exits = await reasons('exits')
      expect(exits[1]).toBe('fail: the wallet process exited with code 3 before answering the request')
      // Cases 1 and 3 are answered (5101, so they fail on the expectation, not on the transport).
      expect(exits[0]).toMatch(/^fail: expected .*got error 5101/)
      expect(exits[2]).toMatch(/^fail: expected .*got error 5101/)
    })

    it('a wallet that never answers: TIMEOUT per case, never passed, and the run ends', {
      timeout: 60_000,
    }, async () => {
      expect(new Set(await reasons('silent', 300))).toEqual(
        new Set(['timeout: no answer from the wallet within 300 ms']),
      )
    })

    it('a wallet that refuses its configuration, and a command that does not exist', {
      timeout: 60_000,
    }, async () => {
      expect(new Set(await reasons('refuses'))).toEqual(
        new Set(['fail: the wallet refused the configuration line: no keys here']),
      )
      const missing = await runExec('/nonexistent/wallet-binary', {
        filter: 'eip155/eth_sign ',
        skipChains: true,
      })
      expect(missing.failed).toBe(3)
      expect(missing.results[0]?.reason).toMatch(
        /^the wallet process exited with code 127 before answering the configuration line; its stderr ends: .*not found/,
      )
    })
  })
})

describe('reports: --json and --junit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-report-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('writes one JSON record per case and a JUnit file that parses back with the same verdicts', {
    timeout: 120_000,
  }, async () => {
    const json = join(dir, 'report.json')
    const junit = join(dir, 'report.xml')
    const broken = `${tsNode} "${here('fixtures/brokenWallet.ts')}" untweakedTaproot`
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    let code: number
    try {
      code = await runConformanceCommand([
        '--exec',
        broken,
        '--filter',
        'bip122/signMessage',
        '--json',
        json,
        '--junit',
        junit,
      ])
    } finally {
      spy.mockRestore()
    }
    expect(code).toBe(1)
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport
    expect(report).toMatchObject({ transport: 'exec', passed: 16, failed: 2, pending: 0, timedOut: 0 })
    expect(report.cases).toHaveLength(18)
    const taproot = report.cases.find((c) => c.id === 'bip122/signMessage#6')!
    expect(taproot).toMatchObject({
      name: 'bip322, P2TR (BIP-86 tweaked key)',
      method: 'bip122/signMessage',
      transport: 'exec',
      verdict: 'FAIL',
      expected: { verify: { function: 'verifySignMessage', options: { network: 'mainnet' } } },
    })
    expect(taproot.reason).toMatch(/^verifySignMessage: /)
    expect(taproot.got).toMatchObject({ jsonrpc: '2.0', result: { address: expect.stringMatching(/^bc1p/) } })
    expect(taproot.clause).toContain('BIP-137')
    expect(typeof taproot.durationMs).toBe('number')

    const xml = readFileSync(junit, 'utf8')
    expect(XMLValidator.validate(xml)).toBe(true)
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml)
    const suites = parsed.testsuites
    expect(suites).toMatchObject({ tests: '18', failures: '2', errors: '0', skipped: '0' })
    const cases = [suites.testsuite.testcase].flat() as { name: string; failure?: { message: string } }[]
    expect(cases).toHaveLength(18)
    expect(cases.filter((c) => c.failure !== undefined).map((c) => c.name)).toEqual([
      '6 bip322, P2TR (BIP-86 tweaked key)',
      '10 ecdsa on a taproot address: refused, or a valid answer',
    ])
    expect(cases[5]!.failure!.message).toBe(taproot.reason)
  })

  it('JUnit stays well-formed whatever the wallet sent (markup, quotes, control characters)', () => {
    const hostile = "x</failure><![CDATA[\"\u0000\u001b\ud800 & 'q'"
    const summary = {
      passed: 0,
      failed: 1,
      pending: 0,
      timedOut: 0,
      results: [
        {
          id: 'eip155/personal_sign#1',
          label: 'eip155/personal_sign #1 a',
          file: 'eip155/personal_sign.json',
          namespace: 'eip155',
          method: 'personal_sign',
          name: hostile,
          outcome: 'fail' as const,
          reason: hostile,
          ms: 3,
          expected: { result: '0x' },
          got: { jsonrpc: '2.0', id: 1, result: hostile },
          clause: 'EIP-191',
          keys: 'fixed' as const,
        },
      ],
    }
    const xml = junitReport(summary, 'exec')
    expect(XMLValidator.validate(xml)).toBe(true)
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml)
    // Read back as sent, but for the characters XML cannot carry.
    expect(parsed.testsuites.testsuite.testcase.failure.message).toBe(
      "x</failure><![CDATA[\"\ufffd\ufffd\ufffd & 'q'",
    )
  })

  it('a timed-out case is an <error> in JUnit and TIMEOUT in JSON; exit code 1', {
    timeout: 60_000,
  }, async () => {
    const json = join(dir, 'timeout.json')
    const junit = join(dir, 'timeout.xml')
    const silent = `"${process.execPath}" "${here('fixtures/misbehavingExec.mjs')}" silent`
    const lines: string[] = []
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk))
      return true
    })
    let code: number
    try {
      code = await runConformanceCommand([
        '--exec',
        silent,
        '--filter',
        'eip155/eth_sign ',
        '--offline',
        '--timeout',
        '0.2',
        '--json',
        json,
        '--junit',
        junit,
      ])
    } finally {
      spy.mockRestore()
    }
    expect(code).toBe(1)
    expect(lines.filter((line) => line.startsWith('TIMEOUT'))).toHaveLength(3)
    expect(lines.at(-1)).toBe('0 passed, 0 failed, 3 timed out\n')
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonReport
    expect(report.cases.map((c) => c.verdict)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT'])
    const xml = readFileSync(junit, 'utf8')
    expect(XMLValidator.validate(xml)).toBe(true)
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml)
    expect(parsed.testsuites).toMatchObject({ tests: '3', failures: '0', errors: '3' })
  })
})
