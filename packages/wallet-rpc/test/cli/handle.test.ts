import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { serveJsonLines } from '../../src/cli/handle.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { createFakeNamespace, FAKE_ACCOUNT } from '../core/fakeNamespace.js'

async function run(lines: string[], approve = true): Promise<unknown[]> {
  const { namespace } = createFakeNamespace()
  const wallet = createWalletRpc({ namespaces: [namespace], approve: () => approve })
  const input = new PassThrough()
  const output = new PassThrough()
  const chunks: string[] = []
  output.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
  input.end(lines.join('\n'))
  await serveJsonLines(wallet, input, output)
  return chunks
    .join('')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line))
}

const line = (id: number, method: string, params: unknown, chainId = 'fake:1') =>
  JSON.stringify({ chainId, request: { jsonrpc: '2.0', id, method, params } })

describe('wallet-rpc handle (JSON lines)', () => {
  it('answers one line per request, in order; a non-JSON line answers -32700 and the next is still served', async () => {
    const answers = await run([
      line(1, 'fake_getAccount', {}),
      '{not json',
      '',
      line(2, 'fake_sign', { account: FAKE_ACCOUNT, message: '01' }),
      line(3, 'fake_getAccount', {}, 'fake:9'),
    ])
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: FAKE_ACCOUNT },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } },
      { jsonrpc: '2.0', id: 2, result: { signature: 'sig(01)', big: '1180591620717411303424' } },
      {
        jsonrpc: '2.0',
        id: 3,
        error: { code: 5100, message: 'Unsupported chain.', data: { chainId: 'fake:9' } },
      },
    ])
  })

  it('with approvals refused, signing answers 5000', async () => {
    expect(await run([line(1, 'fake_sign', { account: FAKE_ACCOUNT, message: '' })], false)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: 5000, message: 'User rejected.' } },
    ])
  })
})
