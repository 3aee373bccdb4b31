import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasHiddenCharacters } from '../../../src/core/text.js'
import { type AddChainRequest, mnemonicKeys } from '../../../src/eip155/index.js'
import { errorOf, harness } from '../../eip155/helpers.js'

/**
 * Text from every third party on eip155 reaches the wallet's UI bounded and printable (issue 41): a node's
 * error words, a chain's name in wallet_addEthereumChain (and a name that claims another chain), a token's
 * image URL in wallet_watchAsset.
 */
const mnemonic = 'test test test test test test test test test test test junk'
const account = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

/** A port nothing listens on: an RPC URL there is unreachable at once. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe("a node's error words", () => {
  it('any text a node answers reaches the dapp as one bounded line, hidden characters written out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 5000 }), async (words) => {
        const provider = {
          async request({ method }: { method: string }) {
            if (method === 'eth_chainId') return '0x1'
            throw new Error(words)
          },
        }
        const wallet = harness({
          keys: mnemonicKeys({ mnemonic }),
          chains: [{ chainId: 1, provider }],
        })
        const error = errorOf(await wallet.call('eth_sendTransaction', [{ from: account, to: account }]))
        expect(error.code).toBe(-32603)
        const reason = (error.data as { reason: string }).reason
        expect(hasHiddenCharacters(reason)).toBe(false)
        expect(reason).not.toMatch(/[\t\n\r]/)
        // 500 characters, each at most "\u{10FFFF}" once written out, and the "…" of a cut.
        expect(reason.length).toBeLessThanOrEqual(500 * 10 + 1)
      }),
      { numRuns: 300 },
    )
  })
})

describe('wallet_addEthereumChain', () => {
  const asked: AddChainRequest[] = []
  const wallet = () =>
    harness({
      keys: mnemonicKeys({ mnemonic }),
      chains: [1],
      addEthereumChain: (chain) => {
        asked.push(chain)
        return false
      },
    })
  const chain = (fields: Record<string, unknown>) => [
    {
      chainId: '0x7a6a',
      chainName: 'Other',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: ['https://rpc.invalid'],
      ...fields,
    },
  ]

  it('a name with control, bidi or invisible characters is refused naming the field, before any RPC', async () => {
    const w = wallet()
    for (const [field, value] of [
      ['chainName', 'Base\u202eteNniaM'],
      ['chainName', 'Main\u0000net'],
      ['chainName', 'Main\nnet'],
      ['chainName', 'Ether\u200bscan'],
      ['nativeCurrency', { name: 'Ether\u2066', symbol: 'ETH', decimals: 18 }],
    ] as const) {
      const error = errorOf(await w.call('wallet_addEthereumChain', chain({ [field]: value })))
      expect(error).toMatchObject({
        code: -32602,
        data: { path: field === 'chainName' ? '0.chainName' : '0.nativeCurrency.name' },
      })
      const { reason } = error.data as { reason: string }
      expect(hasHiddenCharacters(reason) || /[\t\n\r]/.test(reason)).toBe(false)
    }
  })

  it('random Unicode names: refused exactly when they hold a hidden character or a line break', async () => {
    const w = wallet()
    const url = `http://127.0.0.1:${await closedPort()}`
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), async (name) => {
        const error = errorOf(
          await w.call('wallet_addEthereumChain', chain({ chainName: name, rpcUrls: [url] })),
        )
        if (hasHiddenCharacters(name) || /[\t\n\r]/.test(name))
          expect(error).toMatchObject({ code: -32602, data: { path: '0.chainName' } })
        else if (name.length <= 100)
          expect(error).toMatchObject({ code: -32602, data: { rule: 'chain.rpc_unreachable' } })
      }),
      { numRuns: 300 },
    )
  })

  it("the RPC's own words, when it fails or answers another chain, reach the dapp as one bounded printable line", async () => {
    const hostile = `0x1\u202e${'\u0007x'.repeat(3000)}`
    const server = createHttpServer((request, response) => {
      request.resume()
      request.on('end', () => {
        response.setHeader('content-type', 'application/json')
        response.end(
          request.url === '/error'
            ? JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: hostile } })
            : JSON.stringify({ jsonrpc: '2.0', id: 1, result: hostile }),
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as { port: number }
      const w = wallet()
      for (const [path, rule] of [
        ['/error', 'chain.rpc_unreachable'],
        ['/', 'chain.rpc_mismatch'],
      ] as const) {
        const error = errorOf(
          await w.call('wallet_addEthereumChain', chain({ rpcUrls: [`http://127.0.0.1:${port}${path}`] })),
        )
        expect(error).toMatchObject({ code: -32602, data: { rule } })
        const { reason } = error.data as { reason: string }
        expect(hasHiddenCharacters(reason) || /[\t\n\r]/.test(reason)).toBe(false)
        expect(reason.length).toBeLessThan(2500)
      }
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  describe('a name that claims another chain than its id', () => {
    let base: AnvilInstance
    let local: AnvilInstance
    beforeAll(async () => {
      ;[base, local] = await Promise.all([startAnvil({ chainId: 8453 }), startAnvil({ chainId: 31338 })])
    }, 60_000)
    afterAll(async () => {
      await Promise.all([base?.stop(), local?.stop()])
    })

    it.each([
      ['0x2105', 'Ethereum Mainnet', 'chain 8453 is Base, not what its name says'],
      ['0x2105', 'Base', undefined],
      ['0x2105', 'Base Mainnet', undefined],
      [
        '0x7a6a',
        'Ethereum Mainnet',
        'the name is that of Ethereum Mainnet (chain 1), but the chain id is 31338',
      ],
      ['0x7a6a', 'Arbitrum One', 'the name is that of Arbitrum One (chain 42161), but the chain id is 31338'],
      ['0x7a6a', 'My devnet (database 2)', undefined],
    ])('chain %s named %j: flagged %j to the callback', async (chainId, chainName, mismatch) => {
      const w = wallet()
      asked.length = 0
      const rpc = chainId === '0x2105' ? base.url : local.url
      expect(
        errorOf(await w.call('wallet_addEthereumChain', chain({ chainId, chainName, rpcUrls: [rpc] }))).code,
      ).toBe(4001)
      expect(asked).toHaveLength(1)
      expect(asked[0]!.warnings).toEqual(
        mismatch === undefined
          ? []
          : [
              {
                code: 'chain.name_mismatch',
                severity: 'caution',
                message: `The site calls chain ${Number(chainId)} ${JSON.stringify(chainName)}: ${mismatch}. A chain under another chain's name can make you send on the wrong network.`,
              },
            ],
      )
    })
  })
})

describe('wallet_watchAsset image URLs: http(s) or data:image only', () => {
  const wallet = harness({
    keys: mnemonicKeys({ mnemonic }),
    chains: [1],
    watchAsset: () => true,
  })
  const watch = (image: string) =>
    wallet.call('wallet_watchAsset', {
      type: 'ERC20',
      options: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC', decimals: 6, image },
    })

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'blob:https://evil.example/1',
    'vbscript:msgbox(1)',
    'https://user:pass@cdn.example/usdc.png',
    'not a url',
  ])('%s is refused naming the field, before any chain read', async (image) => {
    expect(errorOf(await watch(image))).toMatchObject({ code: -32602, data: { path: 'options.image' } })
  })

  it.each([
    'https://cdn.example/usdc.png',
    'http://127.0.0.1:8080/t.svg',
    'data:image/png;base64,iVBORw0KGgo=',
  ])('%s is accepted (the chain is read next: none here)', async (image) => {
    expect(errorOf(await watch(image))).toMatchObject({ code: -32603 })
  })
})
