import { describe, expect, it } from 'vitest'
import { hasHiddenCharacters } from '../../src/core/text.js'
import type { AddChainRequest } from '../../src/eip155/index.js'
import { terminalText } from '../../src/walletFromOptions/terminal.js'

describe('--approve prompt: what the terminal shows before its question', () => {
  it("every text a dapp chose (a chain's name, currency, URLs) is one bounded line, hidden characters written out", () => {
    const chain: AddChainRequest = {
      chainId: 8453,
      chainName: 'Base \u202eteniam',
      nativeCurrency: { name: 'E\u200bther', symbol: 'ETH\u2066', decimals: 18 },
      rpcUrl: `https://rpc.example/${'x'.repeat(5000)}`,
      blockExplorerUrls: ['https://scan.example/\u0000\u001b[2J'],
      origin: 'https://dapp.example',
      warnings: [],
    }
    const shown = terminalText(chain)
    expect(hasHiddenCharacters(shown)).toBe(false)
    expect(shown).toContain('"chainName": "Base \\\\u{202E}teniam"')
    expect(shown).toContain('"name": "E\\\\u{200B}ther"')
    expect(shown).toContain('"symbol": "ETH\\\\u{2066}"')
    expect(shown).toContain('"https://scan.example/\\\\u{0}\\\\u{1B}[2J"')
    expect(shown).toContain(`"rpcUrl": "https://rpc.example/${'x'.repeat(1000 - 20)}…"`)
    expect(shown.length).toBeLessThan(1500)
  })
})
