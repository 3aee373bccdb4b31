import { base58, base64 } from '@scure/base'
import { address, createNoopSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { getSetAuthorityInstruction } from '@solana-program/token'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import {
  type SolanaChainProvider,
  type SolanaSigner,
  solana,
  solanaKeys,
  solanaLocalnet,
} from '../../../src/solana/index.js'
import { harness, kitTransaction, mnemonic, ours, stranger } from '../../solana/helpers.js'

/**
 * Issue 18, item 3: each safety rule of the solana namespace, and the bad-input rule (every malformed
 * transaction answers -32602 with a field path, never a crash, never a signature).
 */

/** Our key as an external signer that records every call, so a test can prove nothing was signed. */
function spiedKeys() {
  const signed: Uint8Array[] = []
  const [inner] = solanaKeys.fromMnemonic(mnemonic)
  const spy: SolanaSigner = {
    publicKey: inner!.publicKey,
    sign: (message) => {
      signed.push(message)
      return inner!.sign(message)
    },
  }
  return { keys: solanaKeys.external(spy), signed }
}

let nextId = 1
function spiedWallet(
  options: { providers?: Partial<Record<string, SolanaChainProvider>>; approve?: boolean } = {},
) {
  const { keys, signed } = spiedKeys()
  const wallet = createWalletRpc({
    namespaces: [solana({ keys, chains: [solanaLocalnet], providers: options.providers ?? {} })],
    approve: () => options.approve ?? true,
  })
  const call = async (method: string, params: unknown) =>
    (await wallet.handle({
      chainId: solanaLocalnet,
      request: { id: nextId++, jsonrpc: '2.0', method, params },
    })) as {
      result?: unknown
      error?: { code: number; data?: { path?: string; rule?: string; reason?: string } }
    }
  return { call, signed }
}

describe('solana safety rules', () => {
  it('signs only when one of our keys is a required signer: a mere writable account is not enough', async () => {
    const { call, signed } = spiedWallet()
    // We receive SOL (writable, not a signer): nothing for us to sign.
    const { base64: transaction } = kitTransaction({
      feePayer: stranger,
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(stranger), destination: ours(), amount: 5n }),
      ],
    })
    expect((await call('solana_signTransaction', { transaction })).error?.code).toBe(4100)
    expect(signed).toEqual([])
  })

  it('never signs when the user rejects, nor before approval', async () => {
    const { call, signed } = spiedWallet({ approve: false })
    const { base64: transaction } = kitTransaction({ feePayer: ours() })
    expect((await call('solana_signTransaction', { transaction })).error?.code).toBe(5000)
    expect((await call('solana_signAllTransactions', { transactions: [transaction] })).error?.code).toBe(5000)
    expect(signed).toEqual([])
  })

  it('the legacy copy naming another program than the bytes is refused: shown ≠ signed', async () => {
    const { call, signed } = spiedWallet()
    const { base64: transaction } = kitTransaction({ feePayer: ours() })
    const response = await call('solana_signTransaction', {
      transaction,
      instructions: [{ programId: 'Stake11111111111111111111111111111111111111', keys: [], data: '' }],
    })
    expect(response.error).toMatchObject({ code: -32602, data: { path: 'instructions.0.programId' } })
    expect(signed).toEqual([])
  })

  it('setAuthority on a token account carries a caution naming the new authority', async () => {
    const wallet = harness()
    const tokenAccount = address(base58.encode(new Uint8Array(32).fill(0x44)))
    const { base64: transaction } = kitTransaction({
      feePayer: ours(),
      instructions: [
        getSetAuthorityInstruction({
          owned: tokenAccount,
          owner: createNoopSigner(ours()),
          authorityType: 2,
          newAuthority: stranger,
        }),
      ],
    })
    await wallet.result('solana_signTransaction', { transaction })
    const warning = wallet.reviews[0]!.warnings.find((one) => one.code === 'solana.token.set_authority')
    expect(warning?.message).toContain(stranger)
    expect(warning?.message).toContain('account owner')
  })

  it('a lookup-table reference beyond the table the provider reads is refused, nothing signed', async () => {
    const table = address(base58.encode(new Uint8Array(32).fill(0x55)))
    const provider: SolanaChainProvider = {
      isBlockhashValid: async () => true,
      getBalances: async (addresses) => addresses.map(() => 0n),
      getTokenBalances: async () => [],
      getNonce: async () => undefined,
      getLookupTable: async () => [], // empty table: index 0 does not exist
      simulate: async () => ({ error: undefined, logs: [], accounts: [], unitsConsumed: undefined }),
      send: async () => '',
    }
    const { call, signed } = spiedWallet({ providers: { [solanaLocalnet]: provider } })
    const bytes = base64.decode(kitTransaction({ feePayer: ours() }).base64)
    // Rewrite the v0 message's (empty) lookup list into one table entry loading writable index 0.
    const withLookup = new Uint8Array([
      ...bytes.subarray(0, bytes.length - 1),
      1,
      ...base58.decode(table),
      1,
      0,
      0,
    ])
    const response = await call('solana_signTransaction', { transaction: base64.encode(withLookup) })
    expect(response.error?.code).toBe(-32602)
    expect(response.error?.data?.path).toBe('transaction.message.addressTableLookups.0.writableIndexes.0')
    expect(signed).toEqual([])
  })
})

describe('malformed transactions (fast-check)', () => {
  const valid = base64.decode(kitTransaction({ feePayer: ours() }).base64)

  it('random bytes: -32602 with a path under `transaction`, or a signature; never anything else', async () => {
    const { call } = spiedWallet()
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        const response = await call('solana_signTransaction', { transaction: base64.encode(bytes) })
        if (response.error) {
          expect([-32602, 4100]).toContain(response.error.code)
          if (response.error.code === -32602) expect(response.error.data?.path ?? '').toMatch(/^transaction/)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('mutations of a valid transaction: refused with a path, or still exactly decodable and signed over its bytes', async () => {
    const { call, signed } = spiedWallet()
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(valid.length + 4), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: -3, max: 3 }),
        async (edits, lengthChange) => {
          const mutated = Uint8Array.from(
            lengthChange < 0
              ? valid.subarray(0, valid.length + lengthChange)
              : [...valid, ...new Uint8Array(lengthChange)],
          )
          for (const [position, value] of edits) if (position < mutated.length) mutated[position] = value
          signed.length = 0
          const response = await call('solana_signTransaction', { transaction: base64.encode(mutated) })
          if (response.error) {
            expect(signed).toEqual([])
            if (response.error.code === -32602)
              expect(response.error.data?.path ?? '').toMatch(/^transaction/)
            else expect(response.error.code).toBe(4100)
          } else {
            // Whatever was signed is exactly the message bytes the dapp sent.
            expect(signed).toHaveLength(1)
            const messageStart = 1 + 64 * mutated[0]!
            expect(signed[0]).toEqual(mutated.subarray(messageStart))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('signAllTransactions: a bad entry anywhere refuses the whole request with its index in the path', async () => {
    const { call, signed } = spiedWallet()
    await fc.assert(
      fc.asyncProperty(fc.nat(5), fc.uint8Array({ minLength: 1, maxLength: 64 }), async (index, junk) => {
        const transactions = Array.from({ length: 6 }, () => base64.encode(valid))
        transactions[index] = base64.encode(junk)
        const response = await call('solana_signAllTransactions', { transactions })
        expect(response.error?.code).toBe(-32602)
        expect(response.error?.data?.path ?? '').toMatch(new RegExp(`^transactions\\.${index}`))
        expect(signed).toEqual([])
      }),
      { numRuns: 100 },
    )
  })
})
