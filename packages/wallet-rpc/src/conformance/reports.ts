// Machine-readable reports of a conformance run: a JSON record per case, and JUnit XML for CI systems.
import type { CaseOutcome, CaseResult, RunSummary } from './runner.js'

export const verdictNames: Record<CaseOutcome, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  pending: 'PENDING',
  timeout: 'TIMEOUT',
}

export type JsonReportRecord = {
  id: string
  name: string
  method: string
  transport: string
  verdict: string
  reason?: string
  expected: unknown
  got?: unknown
  durationMs: number
  clause: string
  /** `fixed`: needs the suite's keys (exact bytes); `any`: validity checks only. */
  keys: string
}

export type JsonReport = {
  format: 'wallet-rpc-conformance-report/1'
  transport: string
  passed: number
  failed: number
  pending: number
  timedOut: number
  cases: JsonReportRecord[]
}

export function jsonReport(summary: RunSummary, transport: string): JsonReport {
  return {
    format: 'wallet-rpc-conformance-report/1',
    transport,
    passed: summary.passed,
    failed: summary.failed,
    pending: summary.pending,
    timedOut: summary.timedOut,
    cases: summary.results.map((result) => ({
      id: result.id,
      name: result.name,
      method: `${result.namespace}/${result.method}`,
      transport,
      verdict: verdictNames[result.outcome],
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      expected: result.expected,
      ...('got' in result ? { got: result.got } : {}),
      durationMs: result.ms,
      clause: result.clause,
      keys: result.keys,
    })),
  }
}

/**
 * JUnit XML: one testsuite per method, one testcase per case. FAIL is a <failure>, TIMEOUT an <error> (the
 * wallet never answered), PENDING <skipped> — none of them counts as passed.
 */
export function junitReport(summary: RunSummary, transport: string): string {
  const suites = new Map<string, CaseResult[]>()
  for (const result of summary.results) {
    const name = `${result.namespace}/${result.method}`
    suites.set(name, [...(suites.get(name) ?? []), result])
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const totalMs = summary.results.reduce((sum, result) => sum + result.ms, 0)
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="wallet-rpc conformance (${escapeXml(transport)})" tests="${summary.results.length}" failures="${summary.failed}" errors="${summary.timedOut}" skipped="${summary.pending}" time="${seconds(totalMs)}">`,
  ]
  for (const [name, results] of suites) {
    const count = (outcome: CaseOutcome) => results.filter((result) => result.outcome === outcome).length
    const ms = results.reduce((sum, result) => sum + result.ms, 0)
    lines.push(
      `  <testsuite name="${escapeXml(name)}" tests="${results.length}" failures="${count('fail')}" errors="${count('timeout')}" skipped="${count('pending')}" time="${seconds(ms)}">`,
    )
    for (const result of results) {
      const open = `    <testcase classname="${escapeXml(name.replace('/', '.'))}" name="${escapeXml(`${result.id.split('#')[1]} ${result.name}`)}" time="${seconds(result.ms)}"`
      const reason = escapeXml(result.reason ?? '')
      const detail = escapeXml(
        `expected: ${JSON.stringify(result.expected)}\ngot: ${'got' in result ? JSON.stringify(result.got) : '(no answer)'}\nclause: ${result.clause}`,
      )
      if (result.outcome === 'pass') lines.push(`${open}/>`)
      else if (result.outcome === 'fail')
        lines.push(
          `${open}>`,
          `      <failure message="${reason}" type="FAIL">${detail}</failure>`,
          '    </testcase>',
        )
      else if (result.outcome === 'timeout')
        lines.push(
          `${open}>`,
          `      <error message="${reason}" type="TIMEOUT">${detail}</error>`,
          '    </testcase>',
        )
      else lines.push(`${open}>`, `      <skipped message="${reason}"/>`, '    </testcase>')
    }
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>', '')
  return lines.join('\n')
}

/** Text and attribute escaping; characters XML 1.0 forbids (a wallet's garbage can hold them) become U+FFFD. */
function escapeXml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: naming the control characters XML 1.0 allows
      .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  )
}
