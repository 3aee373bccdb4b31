import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { runConformanceCommand } from '../../src/cli/conformance.js'
import { loadVectors } from '../../src/conformance/index.js'

const personalSignCases = loadVectors().find((v) => v.file === 'eip155/personal_sign.json')!.vector.cases
  .length

describe('wallet-rpc conformance MODULE', () => {
  it('runs the vectors against a module default export and prints one line per case and the total', {
    timeout: 60_000,
  }, async () => {
    const lines: string[] = []
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk))
      return true
    })
    try {
      const code = await runConformanceCommand([
        'packages/wallet-rpc/test/conformance/fixtures/wallet.ts',
        '--filter',
        'eip155/personal_sign',
        '--offline',
      ])
      expect(code).toBe(0)
    } finally {
      spy.mockRestore()
    }
    expect(lines.filter((line) => line.startsWith('PASS'))).toHaveLength(personalSignCases)
    expect(lines.at(-1)).toBe(`${personalSignCases} passed, 0 failed\n`)
  })

  it('refuses a module without createHandler, and a run that matches no case', async () => {
    await expect(
      runConformanceCommand(['packages/wallet-rpc/test/conformance/fixtures/noFactory.ts']),
    ).rejects.toThrow(/createHandler/)
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      expect(await runConformanceCommand(['--filter', 'no such case'])).toBe(1)
    } finally {
      spy.mockRestore()
    }
  })
})

describe('wallet-rpc <command> --help, and a MODULE that cannot load (process)', () => {
  const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    })

  it('every subcommand answers --help on stdout with exit code 0', { timeout: 60_000 }, () => {
    const top = cli(['--help'])
    expect({ status: top.status, stderr: top.stderr }).toEqual({ status: 0, stderr: '' })
    expect(top.stdout).toMatch(/^wallet-rpc <command> \[options\]/)
    for (const command of ['handle', 'properties', 'conformance', 'demo', 'pay-sandbox']) {
      const result = cli([command, '--help'])
      expect({ command, status: result.status }).toEqual({ command, status: 0 })
      expect(result.stdout).toContain(`wallet-rpc ${command}`)
      expect(result.stderr).toBe('')
    }
  })

  it('a MODULE that fails to load: one `cannot load` line, exit code 2, no stack trace', {
    timeout: 60_000,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'))
    try {
      const broken = join(dir, 'broken.ts')
      writeFileSync(broken, 'const x: number =\nexport default (() => {\n')
      const throwing = join(dir, 'throwing.mjs')
      writeFileSync(throwing, 'throw new Error("no keys configured")\n')
      for (const [module, reason] of [
        [broken, /Transform failed with 1 error: .*Unexpected "export"$/],
        [throwing, /: no keys configured$/],
        [join(dir, 'missing.mjs'), /Cannot find module/],
      ] as const) {
        const result = cli(['conformance', module])
        expect(result.status).toBe(2)
        const lines = result.stderr.trim().split('\n')
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(new RegExp(`^wallet-rpc conformance: cannot load ${module}: `))
        expect(lines[0]).toMatch(reason)
        expect(result.stderr).not.toMatch(/\n\s+at /)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a wallet that throws from a timer: one line on stderr, the run goes on and fails', {
    timeout: 60_000,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'))
    try {
      const module = join(dir, 'stray.mjs')
      writeFileSync(
        module,
        [
          "import { createBuiltinHandler } from '" +
            new URL('../../src/conformance/index.ts', import.meta.url).href +
            "'",
          'export default async (config) => { setTimeout(() => { throw new Error("stray") }, 0); return createBuiltinHandler(config) }',
        ].join('\n'),
      )
      const result = cli(['conformance', module, '--filter', 'eip155/personal_sign', '--offline'])
      expect(result.status).toBe(1)
      expect(result.stdout).toMatch(
        new RegExp(`^${personalSignCases} passed, 0 failed, \\d+ errors thrown outside any request$`, 'm'),
      )
      expect(result.stderr).toMatch(/the wallet threw outside a request: stray/)
      expect(result.stderr).not.toMatch(/\n\s+at /)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
