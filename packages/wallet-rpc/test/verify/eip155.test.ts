import { readFileSync } from 'node:fs'
import { keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  verifyEthSendRawTransaction,
  verifyEthSendTransaction,
  verifyEthSign,
  verifyEthSignTransaction,
  verifyEthSignTypedData,
  verifyPersonalSign,
} from '../../src/verify/index.js'

// MetaMask/eth-sig-util src/personal-sign.test.ts (ISC) and viem privateKeyToAccount.test.ts (MIT).
const personal = [
  [
    '0x48656c6c6f2c20776f726c6421',
    '0x29C76e6aD8f28BB1004902578Fb108c507Be341b',
    '0x90a938f7457df6e8f741264c32697fc52f9a8f867c52dd70713d9d2d472f2e415d9c94148991bbe1f4a1818d1dff09165782749c877f5cf1eff4ef126e55714d1c',
  ],
  [
    '0x68656c6c6f20776f726c64',
    '0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb',
    '0xce909e8ea6851bc36c007a0072d0524b07a3ff8d4e623aca4c71ca8e57250c4d0a3fc38fa8fbaaa81ead4b9f6bd03356b6f8bf18bccad167d78891636e1d69561b',
  ],
  [
    'hello world',
    '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b',
  ],
] as const

// The EIP-712 "Ether Mail" example (ethereum/EIPs assets/eip-712/Example.js, CC0), from its vector file.
const mail = JSON.parse(
  readFileSync(new URL('../../test-vectors/eip155/eip712-mail.json', import.meta.url), 'utf8'),
).typedData
const cow = '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'
const mailSignature =
  '0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c'

// ethereum/EIPs EIPS/eip-155.md (CC0).
const eip155Tx = {
  from: '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F',
  to: '0x3535353535353535353535353535353535353535',
  value: '0xde0b6b3a7640000',
  gas: '0x5208',
  gasPrice: '0x4a817c800',
  nonce: '0x9',
}
const eip155Raw =
  '0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83'
const pre155Raw =
  '0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a7640000801ba08383adc8b8ae116f918fb44ca7ff9dfd8012596a5c130c6246a2cc717ba41cdaa053ddfacf5bd4aa7e46d1575acf52636ea659b91f29e2fb91c75567a279738f38'

describe('personal_sign / eth_sign', () => {
  it('accepts the published vectors', () => {
    for (const [message, address, signature] of personal) {
      expect(verifyPersonalSign([message, address], signature)).toEqual({ valid: true })
    }
    expect(verifyEthSign([personal[0][1], personal[0][0]], personal[0][2])).toEqual({ valid: true })
  })
  it('refuses a wrong address, a tampered signature, text-vs-hex confusion and junk', () => {
    const [message, , signature] = personal[0]
    expect(verifyPersonalSign([message, personal[1][1]], signature).valid).toBe(false)
    const tampered = `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`
    expect(verifyPersonalSign([message, personal[0][1]], tampered).valid).toBe(false)
    // The ambiguity vector: the hex text signed as UTF-8 is not the signature of the bytes.
    expect(
      verifyPersonalSign(
        ['0x68656c6c6f20776f726c64', '0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb'],
        '0x394d5aa8189fbe8cfb0f54c98899131d6addd1467152ca97f87094c233adec4c0da343ee79e190aebbd96b2a2b040f0b5092d28ee739f79ee25ccfa7c0d99bbb1c',
      ).valid,
    ).toBe(false)
    expect(verifyEthSign([personal[2][1], 'hello world'], personal[2][2]).valid).toBe(false)
    for (const junk of [null, '0x', 1, `0x${'ff'.repeat(65)}`])
      expect(verifyPersonalSign([message, personal[0][1]], junk).valid).toBe(false)
    expect(verifyPersonalSign(null, signature).valid).toBe(false)
  })
  it('refuses a high-s signature', () => {
    const [message, address, signature] = personal[0]
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const s = BigInt(`0x${signature.slice(66, 130)}`)
    const v = signature.slice(130) === '1b' ? '1c' : '1b'
    const flipped = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${v}`
    expect(verifyPersonalSign([message, address], flipped)).toEqual({
      valid: false,
      reason: 'signature has a high s (malleable)',
    })
  })
})

describe('eth_signTypedData', () => {
  it('accepts the EIP-712 Mail example as object and JSON string', () => {
    expect(verifyEthSignTypedData([cow, mail], mailSignature, { chainId: 1 })).toEqual({ valid: true })
    expect(verifyEthSignTypedData([cow, JSON.stringify(mail)], mailSignature)).toEqual({ valid: true })
  })
  it('refuses a domain for another chain, a changed message and another signer', () => {
    expect(verifyEthSignTypedData([cow, mail], mailSignature, { chainId: 5 })).toEqual({
      valid: false,
      reason: "domain chainId 1 is not the request's chain 5",
    })
    const changed = { ...mail, message: { ...mail.message, contents: 'Hello, Eve!' } }
    expect(verifyEthSignTypedData([cow, changed], mailSignature).valid).toBe(false)
    const otherDomain = { ...mail, domain: { ...mail.domain, name: 'Evil Mail' } }
    expect(verifyEthSignTypedData([cow, otherDomain], mailSignature).valid).toBe(false)
    expect(verifyEthSignTypedData([personal[0][1], mail], mailSignature).valid).toBe(false)
    expect(verifyEthSignTypedData([cow, '{not json'], mailSignature).valid).toBe(false)
  })
})

describe('transactions', () => {
  it('accepts the EIP-155 example and checks every requested field', () => {
    expect(verifyEthSignTransaction([eip155Tx], eip155Raw, { chainId: 1 })).toEqual({ valid: true })
    expect(verifyEthSignTransaction([{ ...eip155Tx, value: '0x1' }], eip155Raw, { chainId: 1 }).valid).toBe(
      false,
    )
    expect(verifyEthSignTransaction([{ ...eip155Tx, to: cow }], eip155Raw, { chainId: 1 }).valid).toBe(false)
    expect(verifyEthSignTransaction([{ ...eip155Tx, nonce: '0xa' }], eip155Raw, { chainId: 1 }).valid).toBe(
      false,
    )
    expect(verifyEthSignTransaction([{ ...eip155Tx, from: cow }], eip155Raw, { chainId: 1 }).valid).toBe(
      false,
    )
    expect(verifyEthSignTransaction([eip155Tx], eip155Raw, { chainId: 5 }).valid).toBe(false)
    expect(verifyEthSignTransaction([eip155Tx], pre155Raw, { chainId: 1 })).toEqual({
      valid: false,
      reason: 'the transaction has no chainId (replayable on every chain)',
    })
  })
  it('accepts an EIP-1559 transaction signed by viem, and its hash for send/sendRaw', async () => {
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const raw = await account.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 3,
      gas: 21000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      value: 5n,
    })
    const request = { from: account.address, to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '0x5' }
    expect(verifyEthSignTransaction([request], raw, { chainId: 31337 })).toEqual({ valid: true })
    const hash = keccak256(raw)
    expect(verifyEthSendTransaction([request], hash, { chainId: 31337, rawTransaction: raw })).toEqual({
      valid: true,
    })
    expect(
      verifyEthSendTransaction([request], keccak256(eip155Raw), { chainId: 31337, rawTransaction: raw })
        .valid,
    ).toBe(false)
    expect(
      verifyEthSendTransaction([{ ...request, data: '0x00' }], hash, { chainId: 31337, rawTransaction: raw })
        .valid,
    ).toBe(false)
    expect(verifyEthSendRawTransaction([raw], hash, { chainId: 31337 })).toEqual({ valid: true })
    expect(verifyEthSendRawTransaction([raw], hash, { chainId: 1 }).valid).toBe(false)
    expect(verifyEthSendRawTransaction([raw], `0x${'00'.repeat(32)}`).valid).toBe(false)
  })
})
