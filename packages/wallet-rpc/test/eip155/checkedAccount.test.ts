import fc from 'fast-check'
import {
  fromRlp,
  type Hex,
  parseTransaction,
  serializeTransaction,
  type TransactionSerializable,
  toRlp,
} from 'viem'
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

const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
/** The other valid signature of the same hash: s → n - s with the parity flipped (high s when s was low). */
const malleated = (r: Hex, s: Hex, yParity: number) => ({
  r,
  s: `0x${(curveOrder - BigInt(s)).toString(16).padStart(64, '0')}` as Hex,
  yParity: 1 - yParity,
  v: yParity === 0 ? 28n : 27n,
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

  it('does not pass on signAuthorization (EIP-7702), which it could not check', () => {
    expect(typeof honest.signAuthorization).toBe('function')
    expect('signAuthorization' in checkedAccount(honest)).toBe(false)
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

  it('refuses a signature by the right key in any form but exactly r ‖ s ‖ v, low s', async () => {
    const good = await honest.signMessage({ message: 'hi' })
    const r = `0x${good.slice(2, 66)}` as Hex
    const s = `0x${good.slice(66, 130)}` as Hex
    const high = malleated(r, s, good.endsWith('1b') ? 0 : 1)
    const variants: Hex[] = [
      `${good.slice(0, 130)}00${good.slice(130)}` as Hex, // v padded to two bytes
      `${good} ` as Hex,
      `0X${good.slice(2)}` as Hex,
      `${high.r}${high.s.slice(2)}${high.yParity === 0 ? '1b' : '1c'}`, // the malleated twin, high s
    ]
    for (const signature of variants) {
      const account = checkedAccount(external({ signMessage: async () => signature }))
      await expect(account.signMessage({ message: 'hi' })).rejects.toThrow(/does not recover/)
    }
  })

  it('refuses the requested transaction, signed by the right key, in any encoding but the canonical one', async () => {
    for (const tx of transactions) {
      const raw = await honest.signTransaction(tx)
      const typed = tx.type !== 'legacy'
      const fields = fromRlp(typed ? `0x${raw.slice(4)}` : raw) as Hex[]
      const encode = (items: Hex[]) =>
        (typed ? `0x${raw.slice(2, 4)}${toRlp(items).slice(2)}` : toRlp(items)) as Hex
      const nonceAt = typed ? 1 : 0
      const parsed = parseTransaction(raw)
      const variants: Hex[] = [
        `${raw}00` as Hex,
        encode(fields.with(nonceAt, `0x00${fields[nonceAt]!.slice(2)}` as Hex)), // leading zero in the nonce
        encode(fields.with(-2, `0x00${fields.at(-2)!.slice(2)}` as Hex)), // and in r
        serializeTransaction(tx, malleated(parsed.r!, parsed.s!, parsed.yParity!)), // high s
      ]
      if (typed && fields.at(-3) === '0x') variants.push(encode(fields.with(-3, '0x00'))) // yParity 0 as 0x00
      for (const signed of variants) {
        expect(signed).not.toBe(raw)
        const account = checkedAccount(external({ signTransaction: async () => signed }))
        await expect(account.signTransaction(tx)).rejects.toThrow(
          /does not parse|other than|does not recover/,
        )
      }
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
