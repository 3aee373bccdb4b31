import { describe, expect, it, vi } from 'vitest'
import { runConformanceCommand } from '../../src/cli/conformance.js'

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
        'test/conformance/fixtures/wallet.ts',
        '--filter',
        'eip155/personal_sign',
        '--offline',
      ])
      expect(code).toBe(0)
    } finally {
      spy.mockRestore()
    }
    expect(lines.filter((line) => line.startsWith('PASS'))).toHaveLength(10)
    expect(lines.at(-1)).toBe('10 passed, 0 failed\n')
  })

  it('refuses a module without createHandler, and a run that matches no case', async () => {
    await expect(runConformanceCommand(['test/conformance/fixtures/noFactory.ts'])).rejects.toThrow(
      /createHandler/,
    )
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      expect(await runConformanceCommand(['--filter', 'no such case'])).toBe(1)
    } finally {
      spy.mockRestore()
    }
  })
})
