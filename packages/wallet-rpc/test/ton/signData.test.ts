import { createHash } from 'node:crypto'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js'
import { Address, beginCell, Cell, contractAddress, loadStateInit } from '@ton/core'
import nacl from 'tweetnacl'
import { describe, expect, it } from 'vitest'
import type { JsonRpcSuccess } from '../../src/core/jsonrpc.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { sha256 } from '../../src/crypto/sha256.js'
import {
  crc32,
  ed25519,
  signDataDigest,
  signDataMessage,
  type TonSignDataResult,
  tep81Domain,
  ton,
  tonKeys,
  tweetnaclEd25519,
} from '../../src/ton/index.js'
import { fixtureSeedHex, request, tonWallet, vectors } from './fixtures.js'

/**
 * A verifier written from the TON Connect spec text (requests-responses.md, "Sign Data"), sharing no code with
 * the signer: node:crypto sha256, zlib's CRC-32, tweetnacl's verify, and its own byte assembly. Like the
 * official demo verifier it also checks that the public key sits in the announced StateInit and that the
 * StateInit hashes to the address.
 */
function verifySignData(
  result: TonSignDataResult,
  expected: { domain: string; stateInitBoc: string; nowSeconds: number; maxAgeSeconds: number },
): boolean {
  if (result.domain !== expected.domain) return false
  if (
    result.timestamp > expected.nowSeconds ||
    result.timestamp < expected.nowSeconds - expected.maxAgeSeconds
  )
    return false
  const init = loadStateInit(Cell.fromBase64(expected.stateInitBoc).beginParse())
  const address = Address.parse(result.address)
  if (!contractAddress(address.workChain, init).equals(address)) return false
  const data = init.data!.beginParse()
  // v5r1 data: is_signature_allowed:1 seqno:32 wallet_id:32 public_key:256; v4r2: seqno:32 wallet_id:32 public_key:256.
  data.skip(init.code!.hash().toString('hex').startsWith('2083') ? 65 : 64)
  const stateKey = data.loadBuffer(32)
  if (stateKey.toString('hex') !== result.publicKey) return false

  let signed: Buffer
  const payload = result.payload as Record<string, string>
  if (payload.type === 'text' || payload.type === 'binary') {
    const wc = Buffer.alloc(4)
    wc.writeInt32BE(address.workChain)
    const domain = Buffer.from(result.domain, 'utf8')
    const domainLength = Buffer.alloc(4)
    domainLength.writeUInt32BE(domain.length)
    const timestamp = Buffer.alloc(8)
    timestamp.writeBigUInt64BE(BigInt(result.timestamp))
    const body =
      payload.type === 'text' ? Buffer.from(payload.text!, 'utf8') : Buffer.from(payload.bytes!, 'base64')
    const bodyLength = Buffer.alloc(4)
    bodyLength.writeUInt32BE(body.length)
    const message = Buffer.concat([
      Buffer.from([0xff, 0xff]),
      Buffer.from('ton-connect/sign-data/'),
      wc,
      address.hash,
      domainLength,
      domain,
      timestamp,
      Buffer.from(payload.type === 'text' ? 'txt' : 'bin'),
      bodyLength,
      body,
    ])
    signed = createHash('sha256').update(message).digest()
  } else if (payload.type === 'cell') {
    const dns = `${result.domain.split('.').reverse().join('\u0000')}\u0000`
    signed = beginCell()
      .storeUint(0x75569022, 32)
      .storeUint(zlibCrc32(Buffer.from(payload.schema!, 'utf8')), 32)
      .storeUint(result.timestamp, 64)
      .storeAddress(address)
      .storeStringRefTail(dns)
      .storeRef(Cell.fromBase64(payload.cell!))
      .endCell()
      .hash()
  } else {
    return false
  }
  return nacl.sign.detached.verify(
    signed,
    Buffer.from(result.signature, 'base64'),
    Buffer.from(result.publicKey, 'hex'),
  )
}

const fixture = vectors('sign-data.json')
const now = fixture.timestamp as number

async function signData(
  payload: unknown,
  origin: string | undefined = 'https://example.com',
  clockSeconds = now,
) {
  const wallet = tonWallet({ clock: () => clockSeconds * 1000 })
  const response = await wallet.rpc.handle({
    chainId: 'ton:-239',
    request: request('ton_signData', payload),
    ...(origin === undefined ? {} : { origin }),
  })
  const properties = await wallet.rpc.sessionProperties()
  return { response, properties, wallet }
}

describe('ton_signData vectors', () => {
  const address = Address.parse(fixture.address)
  for (const vector of fixture.cases) {
    it(`${vector.name}: digest and signature match the vector`, async () => {
      const payload =
        vector.payload.type === 'text'
          ? { type: 'text' as const, text: vector.payload.text }
          : vector.payload.type === 'binary'
            ? { type: 'binary' as const, bytes: new Uint8Array(Buffer.from(vector.payload.bytes, 'base64')) }
            : {
                type: 'cell' as const,
                schema: vector.payload.schema,
                cell: Cell.fromBase64(vector.payload.cell),
              }
      const digest = signDataDigest({ payload, address, domain: fixture.domain, timestamp: now })
      expect(Buffer.from(digest).toString('hex')).toBe(vector.digestHex)
      if (payload.type === 'text') {
        expect(
          Buffer.from(signDataMessage({ payload, address, domain: fixture.domain, timestamp: now })).toString(
            'hex',
          ),
        ).toBe(vector.messageHex)
      }

      const { response } = await signData([vector.payload])
      const result = (response as JsonRpcSuccess<TonSignDataResult>).result
      expect(result).toEqual({
        signature: vector.signature,
        address: fixture.address,
        timestamp: now,
        domain: 'example.com',
        payload: vector.payload,
        publicKey: fixture.key.publicKey,
      })
    })
  }

  it('uses the TEP-81 domain for cells (the plain domain gives the old, incompatible hash)', () => {
    expect(tep81Domain('app.example.com')).toBe('com\0example\0app\0')
    const cellCase = fixture.cases[2]
    const plain = beginCell()
      .storeUint(0x75569022, 32)
      .storeUint(crc32(Buffer.from(cellCase.payload.schema)), 32)
      .storeUint(now, 64)
      .storeAddress(address)
      .storeStringRefTail('example.com')
      .storeRef(Cell.fromBase64(cellCase.payload.cell))
      .endCell()
    expect(plain.hash().toString('hex')).toBe(cellCase.plainDomainDigestHex)
    expect(crc32(Buffer.from(cellCase.payload.schema)).toString(16)).toBe(cellCase.schemaCrc32Hex)
  })

  it('the OpenSSL and @noble/hashes SHA-256 paths give the same digests', () => {
    for (let round = 0; round < 50; round++) {
      const bytes = crypto.getRandomValues(new Uint8Array(round * 13))
      const expected = createHash('sha256').update(bytes).digest('hex')
      expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(expected)
      expect(Buffer.from(nobleSha256(bytes)).toString('hex')).toBe(expected)
    }
  })

  it('crc32 matches the CRC-32 check value and zlib on random input', () => {
    expect(crc32(Buffer.from(fixture.crc32Check.input)).toString(16)).toBe(fixture.crc32Check.crc32Hex)
    for (let round = 0; round < 50; round++) {
      const bytes = crypto.getRandomValues(new Uint8Array(round * 7))
      expect(crc32(bytes)).toBe(zlibCrc32(bytes))
    }
  })
})

describe('ton_signData results verify with an independent verifier', () => {
  const payloads = [
    { type: 'text', text: 'Confirm new 2fa number:\n+1 234 567 8901' },
    { type: 'text', text: '' },
    { type: 'text', text: 'ünïcødé ✓ 🚀' },
    { type: 'binary', bytes: '1Z/SGh+3HFMKlVHSkN91DpcCzT4C5jzHT3sA/24C5A==' },
    { type: 'binary', bytes: '' },
    { type: 'cell', schema: fixture.cases[2].payload.schema, cell: fixture.cases[2].payload.cell },
  ]

  for (const payload of payloads) {
    it(`${payload.type} ${JSON.stringify(payload).slice(0, 40)}: verifies; tampered domain, timestamp or payload fails`, async () => {
      const origin = 'https://app.example.com:8443'
      const { response, properties } = await signData(payload, origin)
      const result = (response as JsonRpcSuccess<TonSignDataResult>).result
      const expected = {
        domain: 'app.example.com:8443',
        stateInitBoc: properties.ton_getStateInit!,
        nowSeconds: now,
        maxAgeSeconds: 900,
      }
      expect(result.domain).toBe('app.example.com:8443')
      expect(verifySignData(result, expected)).toBe(true)

      const tamperedDomain = { ...result, domain: 'evil.example.com' }
      expect(verifySignData(tamperedDomain, { ...expected, domain: 'evil.example.com' })).toBe(false)
      expect(verifySignData({ ...result, timestamp: result.timestamp - 1 }, expected)).toBe(false)
      const tamperedPayload =
        payload.type === 'text'
          ? { ...payload, text: `${payload.text}!` }
          : payload.type === 'binary'
            ? { ...payload, bytes: 'AAAA' }
            : { ...payload, schema: `${payload.schema} ` }
      expect(verifySignData({ ...result, payload: tamperedPayload as never }, expected)).toBe(false)
      const otherKey = nacl.sign.keyPair().publicKey
      expect(verifySignData({ ...result, publicKey: Buffer.from(otherKey).toString('hex') }, expected)).toBe(
        false,
      )
    })
  }

  it('binds the signature to the verified origin, never to a domain the dapp declares', async () => {
    // A declared domain naming another host is a danger: refused unless the policy allows it, and then
    // still bound to the origin.
    const refused = await signData(
      { type: 'text', text: 'x', domain: 'bank.example' },
      'https://dapp.example',
    )
    expect(refused.response).toMatchObject({
      error: { code: -32602, data: { rule: 'ton.sign_data.domain_mismatch' } },
    })
    const rpc = createWalletRpc({
      namespaces: [ton({ keys: tonKeys.fromSecretKey(Buffer.from(fixtureSeedHex, 'hex')) })],
      approve: () => true,
      clock: () => now * 1000,
      policy: { allowDangerous: ['ton.sign_data.domain_mismatch'] },
    })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_signData', { type: 'text', text: 'x', domain: 'bank.example' }),
      origin: 'https://dapp.example',
    })
    const result = (response as JsonRpcSuccess<TonSignDataResult>).result
    expect(result.domain).toBe('dapp.example')
    expect(result.payload).toEqual({ type: 'text', text: 'x', domain: 'bank.example' })
  })

  it('gives the same answer with the tweetnacl backend (runtimes without node:crypto)', async () => {
    const seed = Buffer.from(fixtureSeedHex, 'hex')
    const answers = []
    for (const backend of [tweetnaclEd25519, await ed25519()]) {
      const rpc = createWalletRpc({
        namespaces: [ton({ keys: tonKeys.fromSecretKey(seed, { backend }) })],
        approve: () => true,
        clock: () => now * 1000,
      })
      answers.push(
        await rpc.handle({
          chainId: 'ton:-239',
          request: request('ton_signData', fixture.cases[0].payload),
          origin: 'https://example.com',
        }),
      )
    }
    expect((answers[0] as JsonRpcSuccess<TonSignDataResult>).result.signature).toBe(
      fixture.cases[0].signature,
    )
    expect(answers[0]).toEqual(answers[1])
  })

  it('takes the timestamp from the injected clock', async () => {
    const { response } = await signData({ type: 'text', text: 'x' }, 'https://a.example', 1_800_000_123)
    expect((response as JsonRpcSuccess<TonSignDataResult>).result.timestamp).toBe(1_800_000_123)
  })

  it('signs with the same key on testnet, from accepted as raw or friendly', async () => {
    const wallet = tonWallet({ clock: () => now * 1000 })
    for (const from of [
      fixture.address,
      'UQDSLOFVamNZzdy4LulclcCBEFkRReZ7WscBCLAw3Pg53h3h',
      '0QDSLOFVamNZzdy4LulclcCBEFkRReZ7WscBCLAw3Pg53qZr',
    ]) {
      const response = await wallet.rpc.handle({
        chainId: 'ton:-3',
        request: request('ton_signData', { type: 'text', text: 'x', from, network: '-3' }),
        origin: 'https://example.com',
      })
      expect((response as JsonRpcSuccess<TonSignDataResult>).result.address).toBe(fixture.address)
    }
  })

  it('the seed never appears in the answer or the review', async () => {
    const { response, wallet } = await signData({ type: 'text', text: 'x' })
    const everything = JSON.stringify({ response, reviews: wallet.reviews })
    expect(everything).not.toContain(fixtureSeedHex)
    expect(everything).not.toContain(Buffer.from(fixtureSeedHex, 'hex').toString('base64'))
  })
})
