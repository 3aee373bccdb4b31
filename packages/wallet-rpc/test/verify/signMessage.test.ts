import { base64, hex } from '@scure/base'
import { Verifier } from 'bip322-js'
import { describe, expect, it } from 'vitest'
import {
  bip322MessageHash,
  bitcoinMessageHash,
  verifyBip137,
  verifyBip322,
  verifySignMessage,
} from '../../src/verify/index.js'

// Verbatim from bitcoin/bips bip-0322/basic-test-vectors.json (BSD-2-Clause / public domain BIP text).
const p2wpkhAddress = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l'
const helloSignatures = [
  'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=',
  'AkgwRQIhAOzyynlqt93lOKJr+wmmxIens//zPzl9tqIOua93wO6MAiBi5n5EyAcPScOjf1lAqIUIQtr3zKNeavYabHyR8eGhowEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
]
const emptySignatures = [
  'AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=',
  'AkgwRQIhAPkJ1Q4oYS0htvyuSFHLxRQpFAY56b70UvE7Dxazen0ZAiAtZfFz1S6T6I23MWI2lK/pcNTWncuyL8UL+oMdydVgzAEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
]
const taproot = {
  address: 'bc1pss0zhytly75awhm6x2hhvd5lnzv3vssgrf9axfheq8ldyzn88ges79fler',
  message: 'No prefix fallback',
  signature: 'AUCJYOwOjxYAvatTAGYaVlNXBVyFuc4MwNQkOuK2tl8xhfKDONd0NjfYyNSYcRqeCp8hsAnCEPHAVEkO9h6vbQ/R',
}
const taprootPrefixed = {
  address: 'bc1pcquvhrqv0q68t4m0hfq6tpn006qrskyc7yrqnp2uyrf2emg3wynsdjyk38',
  message: 'PURVOQ544B6HUATVBJZN5EZJUU',
  signature: 'smpAUB6B2Rbupzua8LTQIF06516wzl+cwKy1be8RgoiW0riyXdKwe6GTz/5Hnb37m67pJwIKCh+D5jDueG6KpvYpmu8',
}
// bip322-js test/Verifier.test.ts: P2TR with SIGHASH_ALL (65 bytes).
const taprootAll = {
  address: 'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3',
  message: 'Hello World',
  signature: 'AUHd69PrJQEv+oKTfZ8l+WROBHuy9HKrbFCJu7U1iK2iiEy1vMU5EfMtjc+VSHM7aU0SDbak5IUZRVno2P5mjSafAQ==',
}
// bitcoinjs/bitcoinjs-message test/fixtures.json (MIT), d=1, message "vires is numeris".
const bip137 = {
  message: 'vires is numeris',
  p2pkhUncompressed: [
    '1EHNa6Q4Jz2uvNExL497mE43ikXhwF6kZm',
    'HF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=',
  ],
  p2pkh: [
    '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH',
    'IF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=',
  ],
  p2shP2wpkh: [
    '3JvL6Ymt8MVWiCNHC7oWU6nLeHNJKLZGLN',
    'JF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=',
  ],
  p2wpkh: [
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'KF8nHqFr3K2UKYahhX3soVeoW8W1ECNbr0wfck7lzyXjCS5Q16Ek45zyBuy1Fiy9sTPKVgsqqOuPvbycuVSSVl8=',
  ],
} as const

describe('message hashes', () => {
  it('match the published BIP-322 and BIP-137 values', () => {
    expect(hex.encode(bip322MessageHash(''))).toBe(
      'c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1',
    )
    expect(hex.encode(bip322MessageHash('Hello World'))).toBe(
      'f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a',
    )
    expect(hex.encode(bitcoinMessageHash(''))).toBe(
      '80e795d4a4caadd7047af389d9f7f220562feb6196032e2131e10563352c4bcc',
    )
    expect(hex.encode(bitcoinMessageHash('Vires is Numeris'))).toBe(
      'f8a5affbef4a3241b19067aa694562f64f513310817297089a8929a930f4f933',
    )
  })
})

describe('verifyBip322', () => {
  it('accepts both published P2WPKH signatures, unprefixed, smp-prefixed and as hex', () => {
    for (const signature of helloSignatures) {
      expect(verifyBip322(p2wpkhAddress, 'Hello World', signature)).toEqual({ valid: true })
      expect(verifyBip322(p2wpkhAddress, 'Hello World', `smp${signature}`)).toEqual({ valid: true })
      expect(verifyBip322(p2wpkhAddress, 'Hello World', hex.encode(base64.decode(signature)))).toEqual({
        valid: true,
      })
    }
    for (const signature of emptySignatures)
      expect(verifyBip322(p2wpkhAddress, '', signature).valid).toBe(true)
  })
  it('accepts the taproot vectors (DEFAULT and ALL)', () => {
    for (const v of [taproot, taprootPrefixed, taprootAll]) {
      expect(verifyBip322(v.address, v.message, v.signature)).toEqual({ valid: true })
    }
  })
  it('refuses a wrong message, a wrong address, a tampered signature, an empty witness and a bad prefix', () => {
    expect(verifyBip322(p2wpkhAddress, 'Hello World!', helloSignatures[0]!).valid).toBe(false)
    expect(verifyBip322(p2wpkhAddress, '', helloSignatures[0]!).valid).toBe(false)
    expect(
      verifyBip322('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'Hello World', helloSignatures[0]!).valid,
    ).toBe(false)
    const tampered = base64.decode(helloSignatures[1]!)
    tampered[20] = tampered[20]! ^ 1
    expect(verifyBip322(p2wpkhAddress, 'Hello World', base64.encode(tampered)).valid).toBe(false)
    expect(verifyBip322(p2wpkhAddress, 'Hello World', 'smpAA==').valid).toBe(false)
    expect(verifyBip322(p2wpkhAddress, 'Hello World', 'fooAA==').valid).toBe(false)
    expect(verifyBip322(taproot.address, 'No prefix fallbacK', taproot.signature).valid).toBe(false)
    expect(verifyBip322(taprootAll.address, taproot.message, taproot.signature).valid).toBe(false)
  })
  it('agrees with bip322-js on every vector', () => {
    for (const signature of helloSignatures)
      expect(Verifier.verifySignature(p2wpkhAddress, 'Hello World', signature)).toBe(true)
    for (const v of [taproot, taprootAll])
      expect(Verifier.verifySignature(v.address, v.message, v.signature)).toBe(true)
  })
})

describe('verifyBip137', () => {
  it('accepts each address type with its own header', () => {
    for (const [address, signature] of Object.values(bip137).slice(1) as [string, string][]) {
      expect(verifyBip137(address, bip137.message, signature)).toEqual({ valid: true })
    }
  })
  it('refuses a header for another address type unless loose mode is asked for', () => {
    const [, p2pkhSignature] = bip137.p2pkh
    const result = verifyBip137(bip137.p2wpkh[0], bip137.message, p2pkhSignature)
    expect(result.valid).toBe(false)
    expect(
      verifyBip137(bip137.p2wpkh[0], bip137.message, p2pkhSignature, { allowLooseBip137: true }),
    ).toEqual({ valid: true })
    // P2PKH addresses never accept another header, loose or not (the address commits to compression).
    expect(
      verifyBip137(bip137.p2pkhUncompressed[0], bip137.message, p2pkhSignature, { allowLooseBip137: true })
        .valid,
    ).toBe(false)
  })
  it('refuses another message', () => {
    expect(verifyBip137(bip137.p2wpkh[0], 'foobar', bip137.p2wpkh[1]).valid).toBe(false)
  })
})

describe('verifySignMessage', () => {
  const account = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
  // research/bitcoin.md §4.2, computed for abandon…about m/84'/0'/0'/0/0 (RFC 6979); checked below with bip322-js.
  const signature =
    '270ebad8e3c0a248272efb8d495e35d41a4e919eca730a83bafc3fac9677cfcee314bb4a5e015424c872d391bcc48893ebdfedcefabb6d5415e3d8d68b10f75d28'
  it('accepts the wallet answer and checks messageHash', () => {
    expect(Verifier.verifySignature(account, 'Hello World', base64.encode(hex.decode(signature)))).toBe(true)
    const result = {
      address: account,
      signature,
      messageHash: 'a7af0baad5ae99b97fc69b3a0d1abcf3ef17f131cc4776e1bc11933ec8550f49',
    }
    expect(verifySignMessage({ account, message: 'Hello World' }, result)).toEqual({ valid: true })
    expect(
      verifySignMessage({ account, message: 'Hello World' }, { ...result, messageHash: '00'.repeat(32) })
        .valid,
    ).toBe(false)
  })
  it('refuses an answer signed by another address than the one requested', () => {
    const other = 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'
    const verdict = verifySignMessage(
      { account, message: 'Hello World', address: other },
      { address: account, signature },
    )
    expect(verdict).toEqual({ valid: false, reason: expect.stringContaining('expected') })
  })
  it('never throws on junk', () => {
    for (const junk of [
      null,
      1,
      'x',
      {},
      { address: 1 },
      { address: account, signature: '' },
      { address: account, signature: 'zz' },
    ]) {
      expect(verifySignMessage({ account, message: 'm' }, junk).valid).toBe(false)
    }
    expect(verifySignMessage(null as never, null).valid).toBe(false)
  })
})
