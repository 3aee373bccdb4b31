import { readFileSync } from 'node:fs'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { describe, expect, it } from 'vitest'
import { BIP122_MAINNET, BIP122_REGTEST, BIP122_TESTNET } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import type { KeyProvider } from '../../src/bip122/types.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { bip322jsVerifies, nobleVerifies } from './signMessage.independent.js'

const vectors = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/bip122/${name}`, import.meta.url), 'utf8'))
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const keys = hdKeys({ mnemonic })

function wallet(options: { approve?: (review: Review) => boolean; provider?: KeyProvider } = {}) {
  const namespace = bip122({ keys: options.provider ?? keys })
  return createWalletRpc({ namespaces: [namespace], approve: options.approve ?? (() => true) })
}

/**
 * A wallet whose keys record every sign operation (`calls`) and whose `approve` answers `answer` and notes
 * how many sign operations had happened when it was asked (`seen`, one entry per approval asked).
 */
function watchedWallet(answer: boolean) {
  const calls: string[] = []
  const seen: number[] = []
  const spy: KeyProvider = {
    kind: keys.kind,
    account: keys.account,
    publicKey: (path) => keys.publicKey(path),
    signEcdsa: (path, hash) => {
      calls.push('ecdsa')
      return keys.signEcdsa(path, hash)
    },
    signEcdsaRecoverable: (path, hash) => {
      calls.push('ecdsa')
      return keys.signEcdsaRecoverable!(path, hash)
    },
    signTaproot: (path, hash, aux) => {
      calls.push('taproot')
      return keys.signTaproot(path, hash, aux)
    },
  }
  const approve = () => {
    seen.push(calls.length)
    return answer
  }
  return { rpc: wallet({ provider: spy, approve }), calls, seen }
}

async function sign(rpc: ReturnType<typeof wallet>, chainId: string, params: unknown) {
  return rpc.handle({ chainId, request: { id: 7, jsonrpc: '2.0', method: 'signMessage', params } })
}

const addresses = {
  [BIP122_MAINNET]: {
    p2wpkh: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    p2tr: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    'p2sh-p2wpkh': '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
    p2pkh: '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
    change: 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el',
  },
  [BIP122_REGTEST]: {
    p2wpkh: 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk',
    p2tr: 'bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg',
    'p2sh-p2wpkh': '2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2',
    p2pkh: 'mkpZhYtJu2r87Js3pDiWJDmPte2NRZ8bJV',
    change: 'bcrt1q9u62588spffmq4dzjxsr5l297znf3z6jkgnhsw',
  },
} as const
const messages = ['', 'Hello World', 'UTF-8 support: öäüéàè 测试文本 😄', 'x'.repeat(300)]

describe('signMessage signatures verify with independent implementations', () => {
  const rpc = wallet()
  for (const chainId of [BIP122_MAINNET, BIP122_REGTEST] as const) {
    const network = chainId === BIP122_MAINNET ? 'mainnet' : 'regtest'
    for (const [type, address] of Object.entries(addresses[chainId])) {
      for (const protocol of [undefined, 'ecdsa', 'bip322'] as const) {
        if (type === 'p2tr' && protocol === 'ecdsa') continue
        it(`${network} ${type} protocol=${protocol ?? '(default)'}`, async () => {
          for (const message of messages) {
            const params = {
              account: addresses[chainId].p2wpkh,
              address,
              message,
              ...(protocol ? { protocol } : {}),
            }
            const response = await sign(rpc, chainId, params)
            if (!('result' in response)) throw new Error(JSON.stringify(response))
            const answer = response.result as { address: string; signature: string; messageHash: string }
            expect(answer.address).toBe(address)
            // Header-strict BIP-137 where the answer is BIP-137; bip322-js needs a mainnet/testnet-style address.
            const strict = answer.signature.length === 130
            if (chainId === BIP122_MAINNET)
              expect(bip322jsVerifies(address, message, answer.signature, strict)).toBe(true)
            expect(nobleVerifies(answer, message, network)).toBe(true)
            expect(nobleVerifies(answer, `${message}.`, network)).toBe(false)
          }
        })
      }
    }
  }

  it('reproduces the computed project vectors byte for byte (BIP-137 and BIP-322, RFC 6979)', async () => {
    for (const row of vectors('bip137.json').project) {
      const response = await sign(rpc, BIP122_MAINNET, { account: row.address, message: row.message })
      expect(response).toMatchObject({
        result: {
          address: row.address,
          signature: row.signatureHex,
          ...(row.messageHash ? { messageHash: row.messageHash } : {}),
        },
      })
    }
    for (const row of vectors('bip322.json').project) {
      const response = await sign(rpc, BIP122_MAINNET, {
        account: row.address,
        message: row.message,
        protocol: 'bip322',
      })
      const expected = row.signatureHex ?? Buffer.from(row.signature, 'base64').toString('hex')
      expect(response).toEqual({
        jsonrpc: '2.0',
        id: 7,
        result: { address: row.address, signature: expected, messageHash: row.messageHash },
      })
    }
  })

  it('answers with the address in its canonical spelling when the request names it in upper case', async () => {
    const response = await sign(rpc, BIP122_MAINNET, {
      account: addresses[BIP122_MAINNET].p2wpkh,
      address: addresses[BIP122_MAINNET].p2tr.toUpperCase(),
      message: 'hi',
    })
    const answer = (response as { result: { address: string; signature: string; messageHash: string } })
      .result
    expect(answer.address).toBe(addresses[BIP122_MAINNET].p2tr)
    expect(bip322jsVerifies(answer.address, 'hi', answer.signature)).toBe(true)
  })

  it('defaults the signing address to the one `account` names, and P2TR without protocol to BIP-322', async () => {
    const response = await sign(rpc, BIP122_MAINNET, {
      account: addresses[BIP122_MAINNET].p2tr,
      message: 'hi',
    })
    const answer = (response as { result: { address: string; signature: string; messageHash: string } })
      .result
    expect(answer.address).toBe(addresses[BIP122_MAINNET].p2tr)
    expect(answer.signature).toMatch(/^0140/)
    expect(bip322jsVerifies(answer.address, 'hi', answer.signature)).toBe(true)
  })

  it('works with an external signer that gives no recovery id (BIP-137 recovers it)', async () => {
    const external: KeyProvider = {
      kind: 'hd',
      account: 0,
      publicKey: (path) => keys.publicKey(path),
      signEcdsa: (path, hash) => keys.signEcdsa(path, hash),
      signTaproot: (path, hash, aux) => keys.signTaproot(path, hash, aux),
    }
    const rpcExternal = wallet({ provider: external })
    for (const address of [
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
    ]) {
      const response = await sign(rpcExternal, BIP122_MAINNET, { account: address, message: 'external' })
      const answer = (response as { result: { address: string; signature: string; messageHash: string } })
        .result
      expect(bip322jsVerifies(address, 'external', answer.signature, true)).toBe(true)
      expect(nobleVerifies(answer, 'external')).toBe(true)
    }
  })
})

describe('signMessage refusals', () => {
  const rpc = wallet()
  const account = addresses[BIP122_MAINNET].p2wpkh
  const cases: Array<[string, unknown, number, string?]> = [
    [
      'ecdsa for a taproot address',
      { account, address: addresses[BIP122_MAINNET].p2tr, message: 'm', protocol: 'ecdsa' },
      -32602,
      'protocol',
    ],
    [
      'an address of account 1',
      { account, address: 'bc1qku0qh0mc00y8tk0n65x2tqw4trlspak0fnjmfz', message: 'm' },
      4100,
    ],
    [
      'an address of another wallet',
      { account, address: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l', message: 'm' },
      4100,
    ],
    [
      'an account of another wallet',
      { account: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l', message: 'm' },
      4100,
    ],
    [
      'a testnet address on mainnet',
      { account, address: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', message: 'm' },
      -32602,
      'address',
    ],
    [
      'a testnet account on mainnet',
      { account: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', message: 'm' },
      -32602,
      'account',
    ],
    ['not an address', { account: 'hello', message: 'm' }, -32602, 'account'],
    [
      'the broken WalletConnect doc address (bad bech32m checksum)',
      { account: 'bc1pmzfrwwndsqmk5yh69yjr5lfgfg4ev8c0tsc06e', message: 'm' },
      -32602,
      'account',
    ],
    ['an unknown protocol', { account, message: 'm', protocol: 'schnorr' }, -32602, 'protocol'],
    ['no message', { account }, -32602, 'message'],
    ['a non-string message', { account, message: 42 }, -32602, 'message'],
    ['params as an array', [account, 'm'], -32602],
  ]
  it.each(cases)('%s → %i', async (_name, params, code, path) => {
    const response = await sign(rpc, BIP122_MAINNET, params)
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code } })
    if (path) expect((response as { error: { data: { path: string } } }).error.data.path).toBe(path)
  })

  it('a chain the wallet does not serve → 5100', async () => {
    const namespace = bip122({ keys, chains: { [BIP122_MAINNET]: {} } })
    const rpcMainnetOnly = createWalletRpc({ namespaces: [namespace], approve: () => true })
    const response = await sign(rpcMainnetOnly, BIP122_TESTNET, {
      account: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
      message: 'm',
    })
    expect(response).toMatchObject({ error: { code: 5100 } })
  })
})

describe('approval comes before any key is touched', () => {
  it('the user says no → 5000 and nothing was signed', async () => {
    const { rpc, calls, seen } = watchedWallet(false)
    for (const protocol of ['ecdsa', 'bip322'] as const) {
      for (const address of Object.values(addresses[BIP122_MAINNET])) {
        if (address.startsWith('bc1p') && protocol === 'ecdsa') continue
        const response = await sign(rpc, BIP122_MAINNET, { account: address, message: 'm', protocol })
        expect(response).toEqual({ jsonrpc: '2.0', id: 7, error: { code: 5000, message: 'User rejected.' } })
      }
    }
    expect(seen.length).toBe(9)
    expect(calls).toEqual([])
  })

  it('the user says yes → exactly one signature, after approval', async () => {
    const { rpc, calls, seen } = watchedWallet(true)
    await sign(rpc, BIP122_MAINNET, {
      account: addresses[BIP122_MAINNET].p2tr,
      message: 'm',
      protocol: 'bip322',
    })
    await sign(rpc, BIP122_MAINNET, { account: addresses[BIP122_MAINNET].p2wpkh, message: 'm' })
    expect(seen).toEqual([0, 1])
    expect(calls).toEqual(['taproot', 'ecdsa'])
  })

  it('a refused request never reaches approve or the keys', async () => {
    const { rpc, calls, seen } = watchedWallet(true)
    const response = await sign(rpc, BIP122_MAINNET, {
      account: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l',
      message: 'm',
    })
    expect(response).toMatchObject({ error: { code: 4100 } })
    expect(seen).toHaveLength(0)
    expect(calls).toEqual([])
  })
})

describe('the review', () => {
  /** A wallet that records every review it is asked to approve and answers `answer`. */
  const reviewing = (answer: boolean) => {
    const reviews: Review[] = []
    const rpc = wallet({
      approve: (review) => {
        reviews.push(review)
        return answer
      },
    })
    return { rpc, reviews }
  }

  it('shows the address, the protocol and the UTF-8 message; warns about hidden characters', async () => {
    const { rpc, reviews } = reviewing(true)
    await sign(rpc, BIP122_MAINNET, {
      account: addresses[BIP122_MAINNET].p2wpkh,
      message: 'Log in to example.com ✓',
    })
    await sign(rpc, BIP122_MAINNET, {
      account: addresses[BIP122_MAINNET].p2wpkh,
      address: addresses[BIP122_MAINNET].change,
      message: 'pay \u202Emoc.elpmaxe',
      protocol: 'bip322',
    })
    await sign(rpc, BIP122_MAINNET, { account: addresses[BIP122_MAINNET].p2wpkh, message: 'y'.repeat(5000) })
    expect(reviews[0]).toMatchObject({
      namespace: 'bip122',
      chainId: BIP122_MAINNET,
      method: 'signMessage',
      account: addresses[BIP122_MAINNET].p2wpkh,
      title: 'Sign message',
      items: [
        { label: 'Address', value: addresses[BIP122_MAINNET].p2wpkh },
        { label: 'Protocol', value: 'BIP-137 (Bitcoin Signed Message)' },
        { label: 'Message', value: 'Log in to example.com ✓' },
        { label: 'Message size', value: '25 bytes' },
      ],
      warnings: [],
    })
    expect(reviews[1]!.items[0]).toEqual({ label: 'Address', value: addresses[BIP122_MAINNET].change })
    expect(reviews[1]!.warnings.map((warning) => warning.code)).toEqual(['message.hidden_characters'])
    expect(reviews[2]!.warnings.map((warning) => warning.code)).toEqual(['message.truncated'])
    expect(JSON.stringify(reviews)).not.toMatch(/abandon/)
  })

  it.each([
    ['a bidi override', 'pay \u202Emoc.elpmaxe'],
    ['an Arabic letter mark', 'a\u061Cb'],
    ['a zero-width space', 'exam\u200Bple.com'],
    ['a line separator', 'ok\u2028hidden'],
    ['a NUL', 'a\u0000b'],
    ['a lone surrogate (signed as U+FFFD)', 'a\uD800b'],
  ])('warns about %s', async (_name, message) => {
    const { rpc, reviews } = reviewing(false)
    await sign(rpc, BIP122_MAINNET, { account: addresses[BIP122_MAINNET].p2wpkh, message })
    expect(reviews[0]!.warnings.map((warning) => warning.code)).toEqual(['message.hidden_characters'])
  })

  it('does not warn about ordinary text: tabs, new lines, accents, CJK, emoji', async () => {
    const { rpc, reviews } = reviewing(false)
    const message = 'Sign in\tto example.com\r\nNonce: 42 — öäü 测试 😄'
    await sign(rpc, BIP122_MAINNET, { account: addresses[BIP122_MAINNET].p2wpkh, message })
    expect(reviews[0]!.warnings).toEqual([])
  })
})

it('noble agrees that BIP-137 signatures are low-S', async () => {
  const rpc = wallet()
  const response = await sign(rpc, BIP122_MAINNET, {
    account: addresses[BIP122_MAINNET].p2wpkh,
    message: 'low-s',
  })
  const signature = Buffer.from((response as { result: { signature: string } }).result.signature, 'hex')
  expect(secp256k1.Signature.fromBytes(signature.subarray(1), 'compact').hasHighS()).toBe(false)
})
