import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { createPublicClient, encodeDeployData, type Hex, http, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBuiltinHandler } from '../../src/conformance/handler.js'
import { minedReceipt } from './helpers.js'

/**
 * The CLI wallet (`wallet-rpc handle`, and the built-in wallet `handle --conformance` builds per case) serves
 * `wallet_watchAsset` and `wallet_addEthereumChain`, answering them as `--approve` says, on two anvils: the
 * one `--rpc` names (eip155:31337, where an OpenZeppelin ERC-20 is deployed) and a second one (eip155:31338)
 * that only a dapp's `wallet_addEthereumChain` brings in, for the life of that process.
 */
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const devMnemonic = 'test test test test test test test test test test test junk'
const account0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const recipient = '0x000000000000000000000000000000000000dEaD'
const tokenArtifact = createRequire(import.meta.url)(
  '@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json',
) as { abi: unknown[]; bytecode: Hex }

let anvil: AnvilInstance
let second: AnvilInstance
let token: Hex
let mnemonicFile: string

beforeAll(async () => {
  ;[anvil, second] = await Promise.all([startAnvil(), startAnvil({ chainId: 31338 })])
  const chain = createPublicClient({ transport: http(anvil.url) })
  const response = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendTransaction',
      params: [
        {
          from: account0,
          data: encodeDeployData({
            abi: tokenArtifact.abi,
            bytecode: tokenArtifact.bytecode,
            args: ['Watch Token', 'WAT', 10n ** 24n, account0],
          }),
        },
      ],
    }),
  })
  const { result } = (await response.json()) as { result: Hex }
  token = (await minedReceipt(chain, result)).contractAddress as Hex
  mnemonicFile = join(mkdtempSync(join(tmpdir(), 'wallet-rpc-cli-methods-')), 'mnemonic')
  writeFileSync(mnemonicFile, devMnemonic)
}, 60_000)

afterAll(async () => {
  await Promise.all([anvil?.stop(), second?.stop()])
})

const line = (chainId: string, id: number, method: string, params: unknown) =>
  JSON.stringify({ chainId, request: { jsonrpc: '2.0', id, method, params } })
const onMain = (id: number, method: string, params: unknown) => line('eip155:31337', id, method, params)
const onSecond = (id: number, method: string, params: unknown) => line('eip155:31338', id, method, params)

const secondChain = () => [
  {
    chainId: toHex(31338),
    chainName: 'Second anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: [second.url],
  },
]
const watchToken = () => ({ type: 'ERC20', options: { address: token, symbol: 'WAT', decimals: 18 } })
const payment = { from: account0, to: recipient, value: '0x1' }

/** One `wallet-rpc handle` process over `lines`; its answers, in order. */
function handle(approve: 'all' | 'none', lines: string[]): Record<string, unknown>[] {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      main,
      'handle',
      '--mnemonic-file',
      mnemonicFile,
      '--approve',
      approve,
      '--rpc',
      `eip155:31337=${anvil.url}`,
    ],
    { input: `${lines.join('\n')}\n`, encoding: 'utf8', timeout: 60_000 },
  )
  expect(run.status, run.stderr).toBe(0)
  return run.stdout
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text) as Record<string, unknown>)
}

describe('wallet-rpc handle: wallet_watchAsset and wallet_addEthereumChain', () => {
  it('--approve all: the token is watched; the chain added serves signing and sending through its RPC until the process ends', async () => {
    const before = await createPublicClient({ transport: http(second.url) }).getBalance({
      address: recipient,
    })
    const answers = handle('all', [
      onSecond(1, 'personal_sign', ['0x6869', account0]),
      onMain(2, 'wallet_watchAsset', watchToken()),
      onMain(3, 'wallet_addEthereumChain', secondChain()),
      onSecond(4, 'personal_sign', ['0x6869', account0]),
      onSecond(5, 'eth_sendTransaction', [payment]),
    ])
    expect(answers[0]).toMatchObject({ id: 1, error: { code: 5100 } })
    expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 2, result: true })
    expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 3, result: null })
    expect(answers[3]).toMatchObject({ id: 4, result: expect.stringMatching(/^0x[0-9a-f]{130}$/) })
    const hash = answers[4]!.result as Hex
    const chain = createPublicClient({ transport: http(second.url) })
    expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect((await chain.getBalance({ address: recipient })) - before).toBe(1n)
    // Not kept: the next process does not serve it.
    const [later] = handle('all', [onSecond(1, 'personal_sign', ['0x6869', account0])])
    expect(later).toMatchObject({ id: 1, error: { code: 5100 } })
  }, 60_000)

  it('--approve none: the token is not watched (false) and the chain is refused (4001), not added', () => {
    const answers = handle('none', [
      onMain(1, 'wallet_watchAsset', watchToken()),
      onMain(2, 'wallet_addEthereumChain', secondChain()),
      onSecond(3, 'personal_sign', ['0x6869', account0]),
    ])
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, result: false })
    expect(answers[1]).toMatchObject({ id: 2, error: { code: 4001 } })
    expect(answers[2]).toMatchObject({ id: 3, error: { code: 5100 } })
  }, 60_000)

  it("the library's checks come first: a token whose symbol differs is refused before --approve is asked", () => {
    const [answer] = handle('all', [
      onMain(1, 'wallet_watchAsset', { type: 'ERC20', options: { address: token, symbol: 'USDC' } }),
    ])
    expect(answer).toMatchObject({
      id: 1,
      error: { code: -32602, data: { rule: 'asset.metadata_mismatch' } },
    })
  }, 60_000)
})

describe('the conformance exec wallet (handle --conformance builds it per case)', () => {
  const config = (approve: 'all' | 'none') => ({
    mnemonic: devMnemonic,
    account: 0,
    now: 1_700_000_000,
    approve,
    providers: { 'eip155:31337': anvil.url },
  })
  const ask = async (approve: 'all' | 'none', requests: [string, string, unknown][]) => {
    const handler = await createBuiltinHandler(config(approve))
    if (typeof handler === 'function') throw new Error('expected a handler object')
    try {
      const answers: unknown[] = []
      for (const [index, [chainId, method, params]] of requests.entries())
        answers.push(
          await handler.handle({ chainId, request: { id: index, jsonrpc: '2.0', method, params } }),
        )
      return answers
    } finally {
      await handler.close?.()
    }
  }

  it('serves both methods as its approve setting says', async () => {
    expect(
      await ask('all', [
        ['eip155:31337', 'wallet_watchAsset', watchToken()],
        ['eip155:31337', 'wallet_addEthereumChain', secondChain()],
        ['eip155:31338', 'personal_sign', ['0x6869', account0]],
      ]),
    ).toMatchObject([{ result: true }, { result: null }, { result: expect.stringMatching(/^0x/) }])
    expect(
      await ask('none', [
        ['eip155:31337', 'wallet_watchAsset', watchToken()],
        ['eip155:31337', 'wallet_addEthereumChain', secondChain()],
      ]),
    ).toMatchObject([{ result: false }, { error: { code: 4001 } }])
  })
})
