import { base64 } from '@scure/base'
import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPsbt, foreignParty, type Harness, startHarness } from '../../bip122/psbtFixture.js'

/**
 * PSBTs that bitcoinjs-lib's parser accepts and Bitcoin Core refuses: data after the last map, a key twice
 * in one map, a known key type with the wrong key length, input or output maps missing or added. Each is
 * refused with -32602 at `psbt` before the user is asked; the well-formed original is signed.
 */
let chain: BitcoinRegtest
let wallet: Harness
let valid: Uint8Array
let account: string
const recipient = foreignParty('strict psbt recipient')

beforeAll(async () => {
  chain = await startBitcoinRegtest()
  wallet = await startHarness({ chain })
  const coin = await wallet.address(84, 0, 0)
  account = coin.address
  const funded = chain.fund(coin.address, 100_000)
  valid = buildPsbt(
    [{ ...funded, script: coin.scriptPubKey, value: 100_000 }],
    [{ script: recipient.script, value: 90_000 }],
  ).toBuffer()
})
afterAll(async () => {
  await wallet.stop()
  await chain.stop()
})

const sign = (bytes: Uint8Array) =>
  wallet.call('signPsbt', {
    account: wallet.accountId,
    psbt: base64.encode(bytes),
    signInputs: [{ address: account, index: 0, sighashTypes: [1] }],
  })

/** `bytes` with `entry` inserted just before the map separator (0x00) at `mapEnd`. */
function withEntry(bytes: Uint8Array, mapEnd: number, entry: Uint8Array): Uint8Array {
  return Uint8Array.from([...bytes.subarray(0, mapEnd), ...entry, ...bytes.subarray(mapEnd)])
}

/** Offsets of the map-terminating 0x00 bytes: global, input 0, output 0 (the PSBT ends with the last). */
function mapEnds(bytes: Uint8Array): number[] {
  const ends: number[] = []
  let offset = 5
  const compact = () => {
    const first = bytes[offset++]!
    if (first < 0xfd) return first
    const width = first === 0xfd ? 2 : 4
    let value = 0
    for (let i = width - 1; i >= 0; i--) value = value * 256 + bytes[offset + i]!
    offset += width
    return value
  }
  while (offset < bytes.length) {
    const keyLength = compact()
    if (keyLength === 0) {
      ends.push(offset - 1)
      continue
    }
    offset += keyLength
    const valueLength = compact() // read before adding: `offset += compact()` would add to the old offset
    offset += valueLength
  }
  return ends
}

describe('strict PSBT decoding', () => {
  it('the well-formed PSBT is signed', async () => {
    expect((await sign(valid)).result).toBeDefined()
  })

  for (const extra of [1, 4, 1000]) {
    it(`${extra} trailing byte(s) after the PSBT: -32602 "extra data after the PSBT"`, async () => {
      const answer = await sign(Uint8Array.from([...valid, ...new Uint8Array(extra).fill(7)]))
      expect(answer.error).toMatchObject({ code: -32602, data: { path: 'psbt' } })
      expect(JSON.stringify(answer.error)).toContain('extra data after the PSBT')
    })
  }

  it('an extra empty output map (one more map than outputs) is extra data', async () => {
    const answer = await sign(Uint8Array.from([...valid, 0x00]))
    expect(JSON.stringify(answer.error)).toContain('extra data after the PSBT')
  })

  it('a missing output map: the PSBT ends early', async () => {
    const answer = await sign(valid.subarray(0, valid.length - 1))
    expect(answer.error).toMatchObject({ code: -32602, data: { path: 'psbt' } })
  })

  it('the same unknown key twice in the input map: duplicate key', async () => {
    const [, inputEnd] = mapEnds(valid)
    const entry = Uint8Array.of(0x02, 0xf0, 0x01, 0x01, 0xaa) // key f001, value aa
    const answer = await sign(withEntry(withEntry(valid, inputEnd!, entry), inputEnd!, entry))
    expect(JSON.stringify(answer.error)).toContain('input 0: duplicate key f001')
  })

  it('an unknown key once is kept and signed (BIP-174: unknown keys must be preserved)', async () => {
    const [, inputEnd] = mapEnds(valid)
    const answer = await sign(withEntry(valid, inputEnd!, Uint8Array.of(0x02, 0xf0, 0x01, 0x01, 0xaa)))
    expect(answer.result).toBeDefined()
  })

  const wrongLengths: Array<[string, number, Uint8Array]> = [
    ['global UNSIGNED_TX with key data', 0, Uint8Array.of(0x02, 0x00, 0x01, 0x00)],
    ['input PARTIAL_SIG with a 10-byte key', 1, Uint8Array.of(0x0b, 0x02, ...new Uint8Array(10), 0x01, 0x30)],
    ['input SIGHASH_TYPE with key data', 1, Uint8Array.of(0x02, 0x03, 0x01, 0x04, 0x01, 0, 0, 0)],
    ['input TAP_KEY_SIG with key data', 1, Uint8Array.of(0x02, 0x13, 0x01, 0x40, ...new Uint8Array(64))],
    [
      'output TAP_INTERNAL_KEY with key data',
      2,
      Uint8Array.of(0x02, 0x05, 0x01, 0x20, ...new Uint8Array(32)),
    ],
  ]
  for (const [name, map, entry] of wrongLengths) {
    it(`${name}: refused before approval`, async () => {
      const approvalsBefore = wallet.approvals.length
      const answer = await sign(withEntry(valid, mapEnds(valid)[map]!, entry))
      expect(answer.error).toMatchObject({ code: -32602, data: { path: 'psbt' } })
      expect(wallet.approvals.length).toBe(approvalsBefore)
    })
  }
})
