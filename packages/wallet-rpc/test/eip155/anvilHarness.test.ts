import { existsSync } from 'node:fs'
import { anvilBinaryPath, startAnvil } from '@wallet-rpc/devchains/anvil'
import { describe, expect, it } from 'vitest'

describe('devchains/anvil', () => {
  it('finds the binary inside the @foundry-rs npm package, not on PATH', () => {
    const binary = anvilBinaryPath()
    expect(binary).toMatch(/node_modules\/@foundry-rs\/anvil-[a-z0-9]+-[a-z0-9]+\/bin\/anvil(\.exe)?$/)
    expect(existsSync(binary)).toBe(true)
  })

  it('starts on 127.0.0.1 with the requested chain id, answers, and stops (twice is fine)', async () => {
    const anvil = await startAnvil({ chainId: 4242 })
    expect(anvil.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(anvil.chainId).toBe(4242)
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(await response.json()).toMatchObject({ result: '0x1092' })
    await anvil.stop()
    await anvil.stop()
    await expect(fetch(anvil.url, { method: 'POST', body: '{}' })).rejects.toThrow()
  })
})
