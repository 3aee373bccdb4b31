import { secp256k1 } from '@noble/curves/secp256k1.js'
import { describe, expect, it } from 'vitest'
import { BIP122_MAINNET } from '../../src/bip122/chains.js'
import { externalSigner } from '../../src/bip122/keys/externalSigner.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import type { KeyPath } from '../../src/bip122/types.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { bip322jsVerifies, nobleVerifies } from './signMessage.independent.js'

const keys = hdKeys({
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
})
const n = secp256k1.Point.CURVE().n

function walletWith(signer: Parameters<typeof externalSigner>[0]) {
  const errors: unknown[] = []
  const wallet = createWalletRpc({
    namespaces: [bip122({ keys: externalSigner(signer), chains: { [BIP122_MAINNET]: {} } })],
    approve: () => true,
    onError: (error) => errors.push(error),
  })
  const sign = (account: string, protocol: 'ecdsa' | 'bip322') =>
    wallet.handle({
      chainId: BIP122_MAINNET,
      request: { id: 3, method: 'signMessage', params: { account, message: 'hardware', protocol } },
    })
  return { sign, errors }
}

const honest = {
  publicKey: (path: KeyPath) => keys.publicKey(path),
  signEcdsa: (path: KeyPath, hash: Uint8Array) => keys.signEcdsa(path, hash),
  signTaproot: (path: KeyPath, hash: Uint8Array, aux?: Uint8Array) => keys.signTaproot(path, hash, aux),
}

describe('externalSigner', () => {
  it('plugs a hardware/MPC-style signer in: every message signature verifies independently', async () => {
    const { sign } = walletWith(honest)
    for (const [address, protocol] of [
      ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'ecdsa'],
      ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'bip322'],
      ['37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf', 'ecdsa'],
      ['bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', 'bip322'],
    ] as const) {
      const response = await sign(address, protocol)
      const answer = (response as { result: { address: string; signature: string; messageHash: string } })
        .result
      expect(bip322jsVerifies(address, 'hardware', answer.signature)).toBe(true)
      expect(nobleVerifies(answer, 'hardware')).toBe(true)
    }
  })

  it('refuses a signature that does not verify, and a high-S one: -32603, nothing returned', async () => {
    const corrupt = walletWith({
      ...honest,
      signEcdsa: async (path, hash) => {
        const signature = await keys.signEcdsa(path, hash)
        signature[10]! ^= 1
        return signature
      },
      signTaproot: async (path, hash) => {
        const signature = await keys.signTaproot(path, hash)
        signature[40]! ^= 1
        return signature
      },
    })
    const highS = walletWith({
      ...honest,
      signEcdsa: async (path, hash) => {
        const signature = secp256k1.Signature.fromBytes(await keys.signEcdsa(path, hash), 'compact')
        return new secp256k1.Signature(signature.r, n - signature.s).toBytes('compact')
      },
    })
    for (const { sign, errors } of [corrupt, highS]) {
      for (const protocol of ['ecdsa', 'bip322'] as const) {
        const response = await sign('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', protocol)
        expect(response).toEqual({
          jsonrpc: '2.0',
          id: 3,
          error: { code: -32603, message: 'Internal error.' },
        })
      }
      expect(errors.length).toBe(2)
    }
    const taproot = await corrupt.sign(
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
      'bip322',
    )
    expect(taproot).toMatchObject({ error: { code: -32603 } })
  })

  it('refuses an invalid public key', async () => {
    const { sign, errors } = walletWith({ ...honest, publicKey: () => new Uint8Array(33).fill(5) })
    const response = await sign('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'ecdsa')
    expect(response).toMatchObject({ error: { code: -32603 } })
    expect(String(errors[0])).toMatch(/invalid public key/)
  })
})
