import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { deployEip7702Executor } from '@wallet-rpc/devchains/eip7702Executor'
import { afterAll, beforeAll, expect, it } from 'vitest'

/** `wallet-rpc handle --delegate eip155:31337=<executor>`: an atomic batch over the CLI's line protocol on anvil. */
const main = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url))
const account0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const recipient = '0x000000000000000000000000000000000000dEaD'

let anvil: AnvilInstance
let delegate: string

beforeAll(async () => {
  anvil = await startAnvil({ args: ['--hardfork', 'prague'] })
  delegate = await deployEip7702Executor(anvil.url)
}, 60_000)

afterAll(async () => {
  await anvil?.stop()
})

const line = (id: number, method: string, params: unknown) =>
  JSON.stringify({ chainId: 'eip155:31337', request: { jsonrpc: '2.0', id, method, params } })

it('handle --delegate: capabilities, one atomic batch, its status; the account is delegated', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-rpc-delegate-'))
  const mnemonicFile = join(dir, 'mnemonic')
  writeFileSync(mnemonicFile, 'test test test test test test test test test test test junk')
  const run = (lines: string[], extra: string[] = []) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        main,
        'handle',
        '--mnemonic-file',
        mnemonicFile,
        '--approve',
        'all',
        '--rpc',
        `eip155:31337=${anvil.url}`,
        ...extra,
      ],
      { input: `${lines.join('\n')}\n`, encoding: 'utf8', timeout: 60_000 },
    )
  const batch = {
    version: '2.0.0',
    id: 'cli-batch',
    chainId: '0x7a69',
    from: account0,
    atomicRequired: true,
    calls: [
      { to: recipient, value: '0x1' },
      { to: recipient, value: '0x2' },
    ],
  }
  const withDelegate = run(
    [
      line(1, 'wallet_getCapabilities', [account0, ['0x7a69']]),
      line(2, 'wallet_sendCalls', [batch]),
      line(3, 'wallet_getCallsStatus', ['cli-batch']),
    ],
    ['--delegate', `eip155:31337=${delegate}`],
  )
  expect(withDelegate.status).toBe(0)
  const [capabilities, sent, status] = withDelegate.stdout
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text))
  expect(capabilities).toMatchObject({ id: 1, result: { '0x7a69': { atomic: { status: 'ready' } } } })
  expect(sent).toMatchObject({
    id: 2,
    result: { id: 'cli-batch', capabilities: { caip345: { caip2: 'eip155:31337' } } },
  })
  expect(sent.result.capabilities.caip345.transactionHashes).toHaveLength(1)
  expect(status).toMatchObject({ id: 3, result: { status: 200, atomic: true } })
  const code = (await (
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [account0, 'latest'] }),
    })
  ).json()) as { result: string }
  expect(code.result).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`)

  // Without --delegate the same atomic request is refused with 5760; a bad --delegate is a usage error.
  const without = run([line(4, 'wallet_sendCalls', [{ ...batch, id: 'cli-2' }])])
  expect(JSON.parse(without.stdout.trim())).toMatchObject({ id: 4, error: { code: 5760 } })
  const bad = run([], ['--delegate', 'eip155:31337=0x1234'])
  expect(bad.status).not.toBe(0)
  expect(bad.stderr).toContain('--delegate takes eip155:ID=ADDRESS')
}, 120_000)
