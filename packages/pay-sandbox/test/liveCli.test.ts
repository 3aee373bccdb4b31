import { startAnvil } from '@wallet-rpc/devchains/anvil'
import { createPublicClient, erc20Abi, getAddress, http } from 'viem'
import { describe, expect, it, vi } from 'vitest'
import { parsePaySandboxArgs, runPaySandboxCommand, UsageError } from '../src/cli/paySandbox.js'

/** `wallet-rpc pay-sandbox --live`: the live key beside the test key, on chains it starts or is given. */

async function run(argv: string[], check: (output: string) => Promise<void>): Promise<string> {
  let output = ''
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    output += String(chunk)
    return true
  })
  try {
    const running = runPaySandboxCommand(argv)
    while (!output.includes('Ctrl-C')) await new Promise((resolve) => setTimeout(resolve, 20))
    await check(output)
    process.emit('SIGTERM', 'SIGTERM')
    expect(await running).toBe(0)
  } finally {
    write.mockRestore()
  }
  return output
}

const keys = (output: string) => [...output.matchAll(/Api-Key:\s+(\S+)/g)].map((match) => match[1]!)

describe('wallet-rpc pay-sandbox --live', () => {
  it('parses --live and --live-token, and refuses --live-token alone', () => {
    expect(parsePaySandboxArgs(['--live', '--port', '0'])).toEqual({ chains: {}, live: true, port: 0 })
    const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
    expect(parsePaySandboxArgs(['--live', '--live-token', `eip155:31337=${token}`])).toMatchObject({
      live: true,
      liveTokens: { 'eip155:31337': token },
    })
    expect(() => parsePaySandboxArgs(['--live-token', `eip155:31337=${token}`])).toThrow(UsageError)
    expect(() => parsePaySandboxArgs(['--live', '--live-token', 'eip155:31337=0x12'])).toThrow(UsageError)
  })

  it('parses --fee FIXED+PERCENT and refuses malformed ones', () => {
    expect(parsePaySandboxArgs(['--fee', '30+2.9'])).toEqual({
      chains: {},
      fee: { fixed: '30', percentage: '2.9' },
    })
    expect(parsePaySandboxArgs(['--fee', '007+0.4%'])).toMatchObject({
      fee: { fixed: '7', percentage: '0.4' },
    })
    for (const value of ['30', '+2.9', '30+', '30+101', '-1+2', '30+2.9.1', '1e3+1', '30 + 2.9']) {
      expect(() => parsePaySandboxArgs(['--fee', value]), value).toThrow(UsageError)
    }
  })

  it('starts its own chains and prints a live svc_ key next to the svc_test_ one; each key sees its own merchant', async () => {
    let anvilUrl = ''
    const output = await run(['--live'], async (text) => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1]!
      const [testKey, liveKey] = keys(text)
      expect(testKey).toMatch(/^svc_test_/)
      expect(liveKey).toMatch(/^svc_(?!test_)/)
      const merchants = async (key: string) =>
        (
          (await (await fetch(`${url}/v1/merchants`, { headers: { 'api-key': key } })).json()) as {
            data: { id: string }[]
          }
        ).data.map((merchant) => merchant.id)
      const [testMerchants, liveMerchants] = [await merchants(testKey!), await merchants(liveKey!)]
      expect(testMerchants).toHaveLength(1)
      expect(liveMerchants).toHaveLength(1)
      expect(testMerchants[0]).not.toBe(liveMerchants[0])
      // The token it deployed is on the anvil it started, and the dev accounts hold it.
      const [, chainUrl, tokenAddress] = /eip155:31337: (\S+), USDC (0x[0-9a-fA-F]{40})/.exec(text)!
      anvilUrl = chainUrl!
      const chain = createPublicClient({ transport: http(anvilUrl) })
      const balance = await chain.readContract({
        address: getAddress(tokenAddress!),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
      })
      expect(balance).toBe(1_000_000_000_000n)
      expect(text).toMatch(/solana:localnet: http:\/\/127\.0\.0\.1:\d+, SPL mint EPjF/)
    })
    expect(output).toContain('pay sandbox stopped')
    // The chains it started are stopped with it.
    await expect(fetch(anvilUrl, { method: 'POST', body: '{}' })).rejects.toThrow()
  }, 60_000)

  it('uses a running chain given with --rpc (deploying its token there)', async () => {
    const anvil = await startAnvil()
    try {
      await run(['--live', '--rpc', `eip155:31337=${anvil.url}`], async (text) => {
        expect(keys(text)[1]).toMatch(/^svc_(?!test_)/)
        expect(text).toContain(`eip155:31337: ${anvil.url}, USDC 0x`)
        const tokenAddress = /USDC (0x[0-9a-fA-F]{40})/.exec(text)![1]!
        const code = await createPublicClient({ transport: http(anvil.url) }).getCode({
          address: getAddress(tokenAddress),
        })
        expect(code?.length).toBeGreaterThan(100)
      })
    } finally {
      await anvil.stop()
    }
  }, 60_000)
})
