import { describe, expect, it, vi } from 'vitest'
import { parsePaySandboxArgs, runPaySandboxCommand, UsageError } from '../src/cli/paySandbox.js'

describe('wallet-rpc pay-sandbox', () => {
  it('parses its options and refuses bad ones with a usage error', () => {
    expect(
      parsePaySandboxArgs([
        '--port',
        '8080',
        '--rpc',
        'eip155:31337=http://127.0.0.1:8545',
        '--time-scale',
        '0.01',
      ]),
    ).toEqual({
      port: 8080,
      chains: { 'eip155:31337': 'http://127.0.0.1:8545' },
      timeScale: 0.01,
    })
    expect(parsePaySandboxArgs(['--help'])).toBe('help')
    expect(
      parsePaySandboxArgs(['--solana', 'http://127.0.0.1:8899=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v']),
    ).toEqual({
      chains: {},
      solana: { rpcUrl: 'http://127.0.0.1:8899', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
    })
    for (const argv of [
      ['--solana', 'http://127.0.0.1:8899'],
      ['--solana', 'http://127.0.0.1:8899=0xdead'],
      ['--port'],
      ['--port', '70000'],
      ['--port', 'x'],
      ['--rpc', 'nourl'],
      ['--time-scale', '0'],
      ['--checkout-url', 'not a url'],
      ['--checkout-url', 'ftp://pay.shop.example'],
      ['--colour', 'red'],
    ]) {
      expect(() => parsePaySandboxArgs(argv), argv.join(' ')).toThrow(UsageError)
    }
  })

  /** Runs the command with `argv` until its banner is out, hands the banner to `check`, then SIGTERMs it. */
  async function withRunningCommand(
    argv: string[],
    check: (output: string) => Promise<void>,
  ): Promise<string> {
    let output = ''
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output += String(chunk)
      return true
    })
    try {
      const running = runPaySandboxCommand(argv)
      while (!output.includes('Ctrl-C')) await new Promise((resolve) => setImmediate(resolve))
      await check(output)
      process.emit('SIGTERM', 'SIGTERM')
      expect(await running).toBe(0)
      return output
    } finally {
      write.mockRestore()
    }
  }

  const bannerValue = (output: string, pattern: RegExp): string => pattern.exec(output)![1]!

  it('prints the URL and the test key, serves requests, and stops on SIGTERM', async () => {
    let url = ''
    let apiKey = ''
    const output = await withRunningCommand(['--port', '0'], async (banner) => {
      url = bannerValue(banner, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      apiKey = bannerValue(banner, /Api-Key:\s+(svc_test_\S+)/)
      const reply = await fetch(`${url}/v1/merchants`, { headers: { 'api-key': apiKey } })
      expect(reply.status).toBe(200)
    })
    expect(output).toContain('pay sandbox stopped')
    await expect(fetch(`${url}/v1/merchants`, { headers: { 'api-key': apiKey } })).rejects.toThrow()
  })

  it('--checkout-url: behind a tunnel, payment links and the checkout page share the public base', async () => {
    await withRunningCommand(['--checkout-url', 'https://abc.tunnel.example/'], async (banner) => {
      expect(banner).toContain(
        'links:        https://abc.tunnel.example/<pay_id> (a wallet trusts abc.tunnel.example)',
      )
      expect(banner).toContain('checkout:     https://abc.tunnel.example/<pay_id>')
      const url = bannerValue(banner, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const reply = await fetch(`${url}/v1/merchant/payment`, {
        method: 'POST',
        headers: {
          'api-key': bannerValue(banner, /Api-Key:\s+(svc_test_\S+)/),
          'merchant-id': bannerValue(banner, /Merchant-Id:\s+(mrch_\S+)/),
          'content-type': 'application/json',
        },
        body: JSON.stringify({ referenceId: 'o-1', amount: { unit: 'iso4217/USD', value: '1250' } }),
      })
      const body = (await reply.json()) as { paymentId: string; gatewayUrl: string }
      expect(body.gatewayUrl).toBe(`https://abc.tunnel.example/${body.paymentId}`)
      // The tunnel forwards the same path to the sandbox: the page is there.
      const page = await fetch(`${url}/${body.paymentId}`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('12.50 USD')
    })
  })

  it('refuses a key that is not a svc_test_ key', async () => {
    await expect(runPaySandboxCommand(['--api-key', 'svc_live_123456789'])).rejects.toThrow(UsageError)
  })
})
