import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { readProvider } from '../../src/core/readProvider.js'
import { solanaRpc } from '../../src/solana/index.js'

/** `solanaRpc` with credentials in its URL: sent as a Basic header, never in the URL nor in an error. */
describe('solanaRpc URL credentials', () => {
  it('sends them as Basic authorization to a URL without them', async () => {
    const seen: Array<{ url: string | undefined; authorization: string | undefined }> = []
    const server = createServer((request, response) => {
      seen.push({ url: request.url, authorization: request.headers.authorization })
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { value: true } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const provider = solanaRpc(`http://user:s3cret@127.0.0.1:${port}/rpc?key=abc`)
      expect(await provider.isBlockhashValid('11111111111111111111111111111111')).toBe(true)
      expect(seen).toEqual([
        { url: '/rpc?key=abc', authorization: `Basic ${Buffer.from('user:s3cret').toString('base64')}` },
      ])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('an unreachable node: the error names neither the password nor the API key in the URL', async () => {
    const provider = solanaRpc('http://user:s3cret@127.0.0.1:1/rpc?api-key=k3y')
    const error = await readProvider('reading the chain', () =>
      provider.isBlockhashValid('11111111111111111111111111111111'),
    ).catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({
      code: -32603,
      data: { reason: expect.stringMatching(/^reading the chain: isBlockhashValid: /) },
    })
    const text = JSON.stringify({
      message: (error as Error).message,
      data: (error as { data?: unknown }).data,
    })
    expect(text).not.toContain('s3cret')
    expect(text).not.toContain('k3y')
  })
})
