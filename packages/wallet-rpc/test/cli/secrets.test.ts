import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { maskUrl } from '../../src/cli/maskUrl.js'

/**
 * The CLI never prints a secret-bearing option's value: a phrase given where a file path belongs, or a
 * provider URL carrying credentials (userinfo, an API key in the query or the path), malformed or not.
 * Each option is run through the real process; stdout and stderr are searched for the secret.
 */
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const cli = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    input: '',
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  })

const phrase = 'legal winner thank year wave sausage worth useful legal winner thank yellow'
const apiKey = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'

const leaks: Array<[string, string[], string[]]> = [
  ['--mnemonic-file given the phrase itself', ['--mnemonic-file', phrase], ['legal winner', 'sausage']],
  [
    '--ton-mnemonic-file given the phrase itself',
    ['--ton-mnemonic-file', phrase],
    ['legal winner', 'sausage'],
  ],
  [
    '--esplora with userinfo, malformed',
    ['--esplora', `bip122:000000000019d6689c085ae165831e93=https://alice:hunter2@[bad`],
    ['hunter2', 'alice:'],
  ],
  [
    '--rpc with a key in the path, malformed',
    ['--rpc', `eip155:1=https://[mainnet.infura.io/v3/${apiKey}`],
    [apiKey],
  ],
  ['--rpc with userinfo, malformed', ['--rpc', 'eip155:1=http://bob:s3cr3tpass@ host'], ['s3cr3tpass']],
  [
    '--toncenter with an api_key query, malformed',
    ['--toncenter', `ton:-239=https://[toncenter.com/api/v2?api_key=${apiKey}`],
    [apiKey],
  ],
]

describe('the CLI never prints a secret', () => {
  for (const [name, options, secrets] of leaks) {
    it(`${name}: a usage error without the secret`, () => {
      const result = cli(['properties', ...options])
      expect(result.status).not.toBe(0)
      expect(result.stderr.length).toBeGreaterThan(0)
      for (const secret of secrets) {
        expect(result.stderr).not.toContain(secret)
        expect(result.stdout).not.toContain(secret)
      }
    })
  }
})

describe('maskUrl', () => {
  it('masks userinfo, query values and long path tokens; keeps the rest readable', () => {
    expect(maskUrl('https://alice:pw@rpc.example/v3/abcdefghij0123456789xyz?key=1&x=2#f')).toBe(
      'https://***@rpc.example/v3/***?key=***&x=***#f',
    )
    expect(maskUrl('eip155:1=http://127.0.0.1:8545')).toBe('eip155:1=http://127.0.0.1:8545')
    expect(maskUrl(`ton:-239=https://toncenter.com/api/v2?api_key=${apiKey}`)).not.toContain(apiKey)
  })
})
