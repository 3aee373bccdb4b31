import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js'
import { Address } from '@ton/core'
import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { parseParams } from '../../src/core/schema.js'
import { signDataDigest, signDataMessage } from '../../src/ton/index.js'
import { tonSignDataParams } from '../../src/ton/methods/ton_signData.js'
import { networkField, oneObject } from '../../src/ton/params.js'

/**
 * The text/binary message as the TON Connect spec writes it, assembled with TextEncoder and DataView and
 * hashed with @noble/hashes: nothing shared with the signer's reused buffer or its cached head.
 */
function specMessage(input: {
  payload: { type: 'text'; text: string } | { type: 'binary'; bytes: Uint8Array }
  address: Address
  domain: string
  timestamp: number
}): Uint8Array {
  const utf8 = new TextEncoder()
  const domain = utf8.encode(input.domain)
  const data = input.payload.type === 'text' ? utf8.encode(input.payload.text) : input.payload.bytes
  const parts = [
    Uint8Array.of(0xff, 0xff),
    utf8.encode('ton-connect/sign-data/'),
    int(4, (view) => view.setInt32(0, input.address.workChain)),
    new Uint8Array(input.address.hash),
    int(4, (view) => view.setUint32(0, domain.length)),
    domain,
    int(8, (view) => view.setBigUint64(0, BigInt(input.timestamp))),
    utf8.encode(input.payload.type === 'text' ? 'txt' : 'bin'),
    int(4, (view) => view.setUint32(0, data.length)),
    data,
  ]
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

function int(size: number, write: (view: DataView) => void): Uint8Array {
  const bytes = new Uint8Array(size)
  write(new DataView(bytes.buffer))
  return bytes
}

const address = fc
  .record({ workChain: fc.constantFrom(0, -1), hash: fc.uint8Array({ minLength: 32, maxLength: 32 }) })
  .map(({ workChain, hash }) => new Address(workChain, Buffer.from(hash)))

const payload = fc.oneof(
  // 'binary' strings include lone surrogates, which both encoders replace with U+FFFD.
  fc
    .oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }))
    .map((text) => ({ type: 'text' as const, text })),
  fc.uint8Array({ maxLength: 1500 }).map((bytes) => ({ type: 'binary' as const, bytes })),
)

const timestamp = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
)

describe('signData text/binary message: property tests against a spec-literal assembly', () => {
  it('every message and digest matches, across calls that reuse or change the wallet and the domain', () => {
    // Small pools, so consecutive calls hit the cached head as often as they miss it.
    const scenario = fc
      .record({
        addresses: fc.array(address, { minLength: 1, maxLength: 3 }),
        domains: fc.array(
          fc.oneof(fc.constantFrom('app.example.com', 'a.example:8443', 'bücher.example'), fc.string()),
          { minLength: 1, maxLength: 3 },
        ),
      })
      .chain(({ addresses, domains }) =>
        fc.array(
          fc.record({
            // The same address as another Address object with equal bytes must hit the same head.
            address: fc
              .constantFrom(...addresses)
              .chain((chosen) =>
                fc.constantFrom(chosen, new Address(chosen.workChain, Buffer.from(chosen.hash))),
              ),
            domain: fc.constantFrom(...domains),
            payload,
            timestamp,
          }),
          { minLength: 1, maxLength: 8 },
        ),
      )
    fc.assert(
      fc.property(scenario, (inputs) => {
        for (const input of inputs) {
          const expected = specMessage(input)
          const message = signDataMessage(input)
          expect(message).toEqual(expected)
          expect(Buffer.isBuffer(message)).toBe(false)
          expect(message.buffer.byteLength).toBe(message.length)
          expect(signDataDigest(input)).toEqual(nobleSha256(expected))
        }
      }),
      { numRuns: 500 },
    )
  })

  it('a hash buffer changed in place after signing gives the new message, not a cached one', () => {
    const wallet = new Address(0, Buffer.alloc(32, 1))
    const input = {
      payload: { type: 'text' as const, text: 'x' },
      address: wallet,
      domain: 'app.example.com',
      timestamp: 1,
    }
    const before = signDataDigest(input)
    wallet.hash[31] = 2
    const after = signDataDigest(input)
    expect(after).not.toEqual(before)
    expect(after).toEqual(nobleSha256(specMessage(input)))
  })
})

// The schema as it was written before the direct dispatch on `type`: the oracle for its answers.
const common = { from: v.optional(v.string()), network: networkField }
const referenceSchema = oneObject(
  v.variant('type', [
    v.looseObject({ type: v.literal('text'), text: v.string(), ...common }),
    v.looseObject({
      type: v.literal('binary'),
      bytes: v.pipe(
        v.string(),
        v.regex(
          /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
          'must be standard base64',
        ),
      ),
      ...common,
    }),
    v.looseObject({
      type: v.literal('cell'),
      schema: v.pipe(v.string(), v.minLength(1, 'must name the TL-B schema')),
      cell: v.string(),
      ...common,
    }),
  ]),
)

function outcome(schema: v.GenericSchema<unknown, unknown>, params: unknown) {
  try {
    return { output: parseParams(schema, params) }
  } catch (error) {
    return { error: { message: (error as Error).message, data: (error as { data?: unknown }).data } }
  }
}

describe('ton_signData params schema: property tests against the plain variant', () => {
  it('accepts, echoes and refuses exactly as the variant does (same reason and path)', () => {
    const candidate = fc.record(
      {
        type: fc.oneof(
          fc.constantFrom('text', 'binary', 'cell', 'json', 'constructor', '__proto__', 'toString'),
          fc.integer(),
        ),
        text: fc.oneof(fc.string(), fc.integer()),
        bytes: fc.oneof(fc.base64String(), fc.string()),
        schema: fc.string(),
        cell: fc.oneof(fc.base64String(), fc.string()),
        from: fc.oneof(fc.string(), fc.integer()),
        network: fc.oneof(fc.constantFrom('-239', '-3', 'x'), fc.integer(), fc.double()),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    const params = fc.oneof(
      candidate,
      candidate.map((object) => [object]),
      fc.array(candidate, { minLength: 2, maxLength: 3 }),
      fc.jsonValue(),
    )
    fc.assert(
      fc.property(params, (input) => {
        expect(outcome(tonSignDataParams, input)).toEqual(outcome(referenceSchema, input))
      }),
      { numRuns: 5000 },
    )
  })
})
