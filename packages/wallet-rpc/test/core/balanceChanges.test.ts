import { describe, expect, it } from 'vitest'
import { type BalanceChangesInput, balanceChangesSection, units } from '../../src/core/balanceChanges.js'

const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const base: BalanceChangesInput = {
  nativeSymbol: 'SOL',
  nativeDecimals: 9,
  changes: [],
  approvals: [],
  notes: [],
}

describe('units', () => {
  it('exact decimal text, no rounding, no exponent', () => {
    expect(units(1234500n, 6)).toBe('1.2345')
    expect(units(1n, 18)).toBe('0.000000000000000001')
    expect(units(10n ** 18n, 18)).toBe('1')
    expect(units(0n, 6)).toBe('0')
    expect(units(42n, 0)).toBe('42')
    expect(units(2n ** 256n - 1n, 77)).toBe(`1.${(2n ** 256n - 1n).toString().slice(1)}`)
  })
})

describe('balanceChangesSection (namespace-neutral: a Solana-shaped example)', () => {
  it('native and token changes, each token named by its address beside its claimed symbol', () => {
    const { items, warnings } = balanceChangesSection({
      ...base,
      changes: [
        {
          kind: 'native',
          asset: undefined,
          symbol: undefined,
          decimals: undefined,
          amount: 5_000_000n,
          direction: 'out',
        },
        { kind: 'fungible', asset: mint, symbol: 'USDC', decimals: 6, amount: 2_500_000n, direction: 'in' },
        {
          kind: 'fungible',
          asset: mint,
          symbol: undefined,
          decimals: undefined,
          amount: 7n,
          direction: 'out',
        },
        {
          kind: 'nft',
          asset: mint,
          tokenId: 3n,
          symbol: 'COL',
          decimals: undefined,
          amount: 1n,
          direction: 'in',
        },
      ],
      notes: ['network fee not included'],
    })
    expect(items).toEqual([
      {
        label: 'Balance changes (simulated)',
        items: [
          { label: 'You send', value: '-0.005 SOL' },
          { label: 'You receive', value: `+2.5 USDC (token ${mint}, symbol as it reports)` },
          { label: 'You send', value: `-7 base units of token ${mint}` },
          { label: 'You receive', value: `+NFT #3 of COL (token ${mint}, symbol as it reports)` },
          { label: 'Note', value: 'network fee not included' },
        ],
      },
    ])
    expect(warnings).toEqual([])
  })

  it('an NFT that is its own contract (TON): its address, then its index and collection when known', () => {
    const nft = { kind: 'nft', symbol: undefined, decimals: undefined, amount: 1n } as const
    const { items } = balanceChangesSection({
      ...base,
      changes: [
        { ...nft, item: 'EQitem', asset: 'EQcollection', tokenId: 7n, direction: 'out' },
        { ...nft, item: 'EQother', asset: undefined, direction: 'in' },
      ],
    })
    expect(items[0]).toEqual({
      label: 'Balance changes (simulated)',
      items: [
        { label: 'You send', value: '-NFT EQitem (#7 of collection EQcollection)' },
        { label: 'You receive', value: '+NFT EQother' },
      ],
    })
  })

  it('a token claiming the native symbol (any case) is a caution', () => {
    const { warnings } = balanceChangesSection({
      ...base,
      changes: [{ kind: 'fungible', asset: mint, symbol: 'sol', decimals: 9, amount: 1n, direction: 'in' }],
    })
    expect(warnings).toEqual([
      {
        code: 'tx.token_symbol_lookalike',
        severity: 'caution',
        message: `Token ${mint} calls itself "sol", which reads as the symbol of this chain's own coin; it is a different asset.`,
      },
    ])
  })

  it('approvals: grants are cautions (unlimited named), revocations are shown without one', () => {
    const { items, warnings } = balanceChangesSection({
      ...base,
      approvals: [
        {
          kind: 'fungible',
          asset: mint,
          symbol: 'USDC',
          decimals: 6,
          spender: 'S1',
          amount: 2n ** 128n,
          granted: true,
        },
        {
          kind: 'fungible',
          asset: mint,
          symbol: undefined,
          decimals: undefined,
          spender: 'S2',
          amount: 5n,
          granted: true,
        },
        {
          kind: 'all',
          asset: mint,
          symbol: undefined,
          decimals: undefined,
          spender: 'S3',
          amount: undefined,
          granted: false,
        },
      ],
    })
    expect(items[1]).toEqual({
      label: 'Approvals (simulated)',
      items: [
        {
          label: 'Grants',
          value: `S1 may spend an unlimited amount of USDC (token ${mint}, symbol as it reports)`,
        },
        { label: 'Grants', value: `S2 may spend 5 base units of token ${mint}` },
        { label: 'Revokes', value: `S3 may no longer spend every token you hold of token ${mint}` },
      ],
    })
    expect(warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['tx.simulated_unlimited_approval', 'caution'],
      ['tx.simulated_approval', 'caution'],
    ])
  })
})
