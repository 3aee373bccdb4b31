import fc from 'fast-check'
import { type Hex, parseTransaction, serializeTransaction, type TransactionSerializable } from 'viem'
import { type LocalAccount, privateKeyToAccount, toAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { checkedAccount } from '../../src/eip155/checkedAccount.js'
import { accountKeys, eip155 } from '../../src/eip155/index.js'
import { createWalletRpc } from '../../src/index.js'

/**
 * External signers are not trusted: `accountKeys` checks every signature they return against the account's
 * address, and every signed transaction against the one requested. An honest signer passes unchanged; a
 * signer that signs with another key, tampers with a transaction, or returns garbage is refused.
 */
const honest = privateKeyToAccount(`0x${'46'.repeat(32)}`)
const other = privateKeyToAccount(`0x${'47'.repeat(32)}`)

/** `honest`'s address, but each operation answered by `impl` (default: honestly). */
const external = (impl: Partial<Pick<LocalAccount, 'signMessage' | 'signTypedData' | 'signTransaction'>>) =>
  toAccount({
    address: honest.address,
    signMessage: impl.signMessage ?? ((parameters) => honest.signMessage(parameters)),
    signTypedData: impl.signTypedData ?? ((parameters) => honest.signTypedData(parameters as never)),
    signTransaction: impl.signTransaction ?? ((tx, options) => honest.signTransaction(tx, options)),
  })

const typedData = {
  types: { Mail: [{ name: 'contents', type: 'string' }] },
  primaryType: 'Mail',
  domain: { name: 'Ether Mail', version: '1', chainId: 1 },
  message: { contents: 'Hello, Bob!' },
} as const

const transactions: TransactionSerializable[] = [
  {
    type: 'eip1559',
    chainId: 1,
    nonce: 3,
    gas: 21000n,
    maxFeePerGas: 3n * 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
    to: other.address,
    value: 10n ** 15n,
  },
  {
    type: 'legacy',
    chainId: 31337,
    nonce: 0,
    gas: 21000n,
    gasPrice: 10n ** 9n,
    to: other.address,
    value: 1n,
    data: '0x1234',
  },
  { type: 'eip2930', chainId: 10, nonce: 9, gas: 50000n, gasPrice: 7n, to: other.address, accessList: [] },
]

describe('checkedAccount', () => {
  it('passes an honest signer’s answers through unchanged', async () => {
    const account = checkedAccount(external({}))
    expect(await account.signMessage({ message: 'hi' })).toBe(await honest.signMessage({ message: 'hi' }))
    expect(await account.signTypedData(typedData)).toBe(await honest.signTypedData(typedData))
    for (const tx of transactions) {
      expect(await account.signTransaction(tx)).toBe(await honest.signTransaction(tx))
    }
  })

  it('refuses signatures made with another key', async () => {
    const account = checkedAccount(
      external({
        signMessage: (parameters) => other.signMessage(parameters),
        signTypedData: (parameters) => other.signTypedData(parameters as never),
        signTransaction: (tx, options) => other.signTransaction(tx, options),
      }),
    )
    await expect(account.signMessage({ message: 'hi' })).rejects.toThrow(
      /message signature that does not recover/,
    )
    await expect(account.signTypedData(typedData)).rejects.toThrow(
      /typed-data signature that does not recover/,
    )
    for (const tx of transactions) {
      await expect(account.signTransaction(tx)).rejects.toThrow(/transaction signature that does not recover/)
    }
  })

  it('refuses a signature over another message, and malformed signatures', async () => {
    const signatures: Hex[] = [
      await honest.signMessage({ message: 'something else' }),
      '0x1234',
      `0x${'00'.repeat(65)}`,
      `0x${'ff'.repeat(64)}1b`,
    ]
    for (const signature of signatures) {
      const account = checkedAccount(external({ signMessage: async () => signature }))
      await expect(account.signMessage({ message: 'hi' })).rejects.toThrow(/does not recover/)
    }
  })

  it('refuses a transaction whose fields differ from the request in any way, even when properly signed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...transactions),
        fc.constantFrom<(tx: TransactionSerializable) => TransactionSerializable>(
          (tx) => ({ ...tx, value: (tx.value ?? 0n) + 1n }),
          (tx) => ({ ...tx, to: honest.address }),
          (tx) => ({ ...tx, nonce: (tx.nonce ?? 0) + 1 }),
          (tx) => ({ ...tx, gas: (tx.gas ?? 0n) * 2n }),
          (tx) => ({ ...tx, data: '0xdeadbeef' }),
          (tx) => ({ ...tx, chainId: (tx.chainId ?? 1) + 1 }),
        ),
        async (tx, tamper) => {
          const account = checkedAccount(
            external({ signTransaction: () => honest.signTransaction(tamper(tx)) }),
          )
          await expect(account.signTransaction(tx)).rejects.toThrow(/other than the one it was asked to sign/)
        },
      ),
      { numRuns: 30 },
    )
  })

  it('refuses unparsable and unsigned transactions', async () => {
    const [tx] = transactions
    const unsigned = serializeTransaction(tx!)
    expect(parseTransaction(unsigned).r).toBeUndefined()
    for (const [raw, reason] of [
      ['0xc0', /does not parse/],
      [unsigned, /unsigned transaction/],
    ] as const) {
      const account = checkedAccount(external({ signTransaction: async () => raw }))
      await expect(account.signTransaction(tx!)).rejects.toThrow(reason)
    }
  })
})

it('a lying external signer behind accountKeys gives -32603 through handle(), never its signature', async () => {
  const errors: unknown[] = []
  const liar = external({ signMessage: (parameters) => other.signMessage(parameters) })
  const wallet = createWalletRpc({
    namespaces: [eip155({ keys: accountKeys(liar), chains: [1] })],
    approve: () => true,
    onError: (error) => errors.push(error),
  })
  const response = await wallet.handle({
    chainId: 'eip155:1',
    request: { id: 1, jsonrpc: '2.0', method: 'personal_sign', params: ['0x68656c6c6f', honest.address] },
  })
  expect(response).toEqual({ id: 1, jsonrpc: '2.0', error: { code: -32603, message: 'Internal error.' } })
  expect(String(errors[0])).toMatch(/does not recover/)
})
