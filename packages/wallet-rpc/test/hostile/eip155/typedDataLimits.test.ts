import { type Hex, hashTypedData, recoverTypedDataAddress, type TypedDataDefinition } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../../src/eip155/index.js'
import { typedDataLimits } from '../../../src/eip155/typedData.js'

/**
 * Bounded work and bounded reviews: typed data with a huge array is refused before any hashing, naming the
 * limit; the largest typed data the limits admit yields a review of bounded length that says what it left out.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const account = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'

function typedData(length: number) {
  return {
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }],
      Batch: [{ name: 'amounts', type: 'uint256[]' }],
    },
    primaryType: 'Batch',
    domain: { name: 'batch' },
    message: { amounts: Array.from({ length }, (_, i) => String(i)) },
  }
}

function wallet() {
  const reviews: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] })],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  return { rpc, reviews }
}

const request = (id: number, data: unknown) => ({
  chainId: 'eip155:1',
  request: { id, method: 'eth_signTypedData_v4', params: [account, JSON.stringify(data)] },
})

describe('eth_signTypedData limits', () => {
  it('an array of 1,000,000 entries is refused before hashing, naming the limit', async () => {
    const { rpc, reviews } = wallet()
    const answer = await rpc.handle(request(1, typedData(1_000_000)))
    expect(answer).toMatchObject({
      error: { code: -32602, data: { reason: expect.stringContaining('limit') } },
    })
    expect(reviews).toHaveLength(0)
  })

  it('an array just over the typed-data limit (within the size limit) is refused at its path', async () => {
    const { rpc, reviews } = wallet()
    const answer = await rpc.handle(request(4, typedData(typedDataLimits.maxArrayLength + 1)))
    expect(answer).toMatchObject({
      error: {
        code: -32602,
        data: { path: '1.message.amounts', reason: expect.stringContaining('(limit)') },
      },
    })
    expect(reviews).toHaveLength(0)
  })

  it('the largest array the limits admit is signed, and its review is bounded and says what it left out', async () => {
    const { rpc, reviews } = wallet()
    const largest = typedData(typedDataLimits.maxArrayLength)
    const answer = await rpc.handle(request(2, largest))
    expect(answer).toHaveProperty('result')
    // Hashed one element at a time ahead of its struct (eip712.ts): a signature of viem's digest.
    const signer = await recoverTypedDataAddress({
      ...(largest as unknown as TypedDataDefinition),
      signature: (answer as { result: Hex }).result,
    })
    expect(signer).toBe(account)
    const lines = JSON.stringify(reviews[0]!.items).split('"label"').length - 1
    expect(lines).toBeLessThanOrEqual(202)
    expect(JSON.stringify(reviews[0]!.items)).toMatch(/more lines \(the review shows 200\)/)
  })

  // A number where a string belongs: viem hashes it (as the number's hex), our encoder hands it to viem, which
  // hashes in one block. 5 values besides the amounts: the domain, its name, the message, label, amounts.
  const unusual = (amounts: number) => ({
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }],
      Batch: [
        { name: 'label', type: 'string' },
        { name: 'amounts', type: 'uint256[]' },
      ],
    },
    primaryType: 'Batch',
    domain: { name: 'batch' },
    message: { label: 12345, amounts: Array.from({ length: amounts }, (_, i) => String(i)) },
  })

  it('typed data viem must hash is signed up to its own limit, with viem digest, and refused past it', async () => {
    const { rpc, reviews } = wallet()
    const atLimit = unusual(typedDataLimits.maxValuesForViem - 5)
    const signed = await rpc.handle(request(5, atLimit))
    expect(signed).toHaveProperty('result')
    expect(reviews[0]!.items).toContainEqual(
      expect.objectContaining({
        label: 'Digest',
        value: hashTypedData(atLimit as unknown as TypedDataDefinition),
      }),
    )

    const refused = await rpc.handle(request(6, unusual(typedDataLimits.maxValuesForViem - 4)))
    expect(refused).toMatchObject({
      error: { code: -32602, data: { path: '1', reason: expect.stringContaining('the usual way') } },
    })
    expect(reviews).toHaveLength(1)
  })

  it('too many types or fields are refused', async () => {
    const { rpc } = wallet()
    const many = typedData(1)
    for (let i = 0; i < typedDataLimits.maxTypes + 1; i++)
      (many.types as Record<string, unknown>)[`T${i}`] = []
    expect(await rpc.handle(request(3, many))).toMatchObject({
      error: { code: -32602, data: { path: '1.types' } },
    })
  })
})

describe('bounded review values', () => {
  it('a 1 MiB personal_sign message is signed, and the review shows its first 4096 characters and how many more', async () => {
    const { rpc, reviews } = wallet()
    const text = 'a'.repeat(1024 * 1024)
    const answer = await rpc.handle({
      chainId: 'eip155:1',
      request: {
        id: 9,
        method: 'personal_sign',
        params: [`0x${Buffer.from(text).toString('hex')}`, account],
      },
    })
    expect(answer).toHaveProperty('result')
    const longest = Math.max(
      ...JSON.stringify(reviews[0]!.items)
        .split('"value":"')
        .map((part) => part.indexOf('"')),
    )
    expect(longest).toBeLessThan(4200)
    expect(JSON.stringify(reviews[0]!.items)).toContain(`(${1024 * 1024 - 4096} more characters not shown)`)
  })
})
