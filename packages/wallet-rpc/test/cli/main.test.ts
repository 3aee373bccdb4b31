import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const cli = (args: string[], input = '') =>
  spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  })

describe('wallet-rpc (process)', () => {
  it('prints usage and exits 2 for an unknown command', () => {
    const result = cli(['frobnicate'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('wallet-rpc <command>')
  })

  it('handle: serves stdin lines and answers 5100 for a chain whose keys were not given', () => {
    const result = cli(
      ['handle', '--approve', 'none'],
      `${JSON.stringify({ chainId: 'ton:-239', request: { jsonrpc: '2.0', id: 'a', method: 'ton_signData', params: [] } })}\nnope\n`,
    )
    expect(result.status).toBe(0)
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((answer) => JSON.parse(answer)),
    ).toEqual([
      {
        jsonrpc: '2.0',
        id: 'a',
        error: { code: 5100, message: 'Unsupported chain.', data: { chainId: 'ton:-239' } },
      },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } },
    ])
  })

  it('handle: a usage error exits 2 and names the flag', () => {
    const result = cli(['handle', '--approve', 'sometimes'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--approve must be all or none')
  })

  it('properties: prints a JSON object', () => {
    const result = cli(['properties'])
    expect(result.status).toBe(0)
    expect(typeof JSON.parse(result.stdout)).toBe('object')
  })
})
