import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import { loadSecp256k1, type Secp256k1, secp256k1Backend } from '../../src/crypto/secp256k1.js'

/** 48 deterministic keys, hashes and aux values, plus edge keys (1, n-1). */
const n = secp256k1.Point.CURVE().n
const hex32 = (value: bigint) => Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex'))
const cases = Array.from({ length: 48 }, (_, i) => ({
  key: sha256(utf8ToBytes(`key ${i}`)),
  hash: sha256(utf8ToBytes(`message ${i}`)),
  aux: sha256(utf8ToBytes(`aux ${i}`)),
  tweak: sha256(utf8ToBytes(`tweak ${i}`)),
}))
cases.push({ key: hex32(1n), hash: hex32(0n), aux: hex32(0n), tweak: hex32(1n) })
cases.push({ key: hex32(n - 1n), hash: hex32(n - 1n), aux: hex32(n - 1n), tweak: hex32(2n) })

const run = (ecc: Secp256k1) =>
  cases.map(({ key, hash, aux, tweak }) => {
    const publicKey = ecc.pointFromScalar(key, true)!
    const xOnly = publicKey.subarray(1)
    const recoverable = ecc.signRecoverable(hash, key)
    return {
      publicKey: bytesToHex(publicKey),
      ecdsa: bytesToHex(ecc.sign(hash, key)),
      recoverable: `${bytesToHex(recoverable.signature)}/${recoverable.recoveryId}`,
      recovered: bytesToHex(ecc.recover(hash, recoverable.signature, recoverable.recoveryId, true)!),
      schnorr: bytesToHex(ecc.signSchnorr(hash, key, aux)),
      xOnlyTweak: JSON.stringify({
        ...ecc.xOnlyPointAddTweak(xOnly, tweak),
        xOnlyPubkey: bytesToHex(ecc.xOnlyPointAddTweak(xOnly, tweak)!.xOnlyPubkey),
      }),
      privateAdd: bytesToHex(ecc.privateAdd(key, tweak)!),
      privateNegate: bytesToHex(ecc.privateNegate(key)),
      pointAddScalar: bytesToHex(ecc.pointAddScalar(publicKey, tweak, true)!),
    }
  })

describe('secp256k1 backends', () => {
  it('tiny-secp256k1 (WASM) loads here and is the default', () => {
    expect(secp256k1Backend.name).toBe('tiny-secp256k1')
  })

  it('tiny-secp256k1 and @bitcoinerlab/secp256k1 give byte-identical ECDSA, recovery, Schnorr and tweaks', async () => {
    const tiny = await loadSecp256k1('tiny-secp256k1')
    const portable = await loadSecp256k1('@bitcoinerlab/secp256k1')
    expect(run(tiny.ecc)).toEqual(run(portable.ecc))
  })

  it('both agree with @noble/curves used directly (RFC 6979 low-S ECDSA, BIP-340 Schnorr)', async () => {
    for (const name of ['tiny-secp256k1', '@bitcoinerlab/secp256k1'] as const) {
      const { ecc } = await loadSecp256k1(name)
      for (const { key, hash, aux } of cases) {
        expect(bytesToHex(ecc.sign(hash, key))).toBe(
          bytesToHex(secp256k1.sign(hash, key, { prehash: false })),
        )
        expect(bytesToHex(ecc.signSchnorr(hash, key, aux))).toBe(bytesToHex(schnorr.sign(hash, key, aux)))
      }
    }
  })

  it('matches the BIP-340 reference vector 1 (test-vectors.csv index 1)', async () => {
    // bitcoin/bips bip-0340/test-vectors.csv, index 1 (BSD-2-Clause).
    const key = Buffer.from('B7E151628AED2A6ABF7158809CF4F3C762E7160F38B4DA56A784D9045190CFEF', 'hex')
    const aux = Buffer.from('0000000000000000000000000000000000000000000000000000000000000001', 'hex')
    const message = Buffer.from('243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89', 'hex')
    const expected =
      '6896bd60eeae296db48a229ff71dfe071bde413e6d43f917dc8dcf8c78de33418906d11ac976abccb20b091292bff4ea897efcb639ea871cfa95f6de339e4b0a'
    for (const name of ['tiny-secp256k1', '@bitcoinerlab/secp256k1'] as const) {
      const { ecc } = await loadSecp256k1(name)
      expect(bytesToHex(ecc.signSchnorr(message, key, aux))).toBe(expected)
    }
  })
})

describe('the portable fallback, end to end', () => {
  it('signMessage through handle() gives the same bytes with WALLET_RPC_SECP256K1=noble and no node:crypto', async () => {
    const script = `
      // node:crypto hidden (noble SHA-256, as in a browser); node:module stays: Node requires the portable
      // libraries at their first use (src/crypto/portableSecp256k1.ts).
      const builtin = process.getBuiltinModule
      if (process.env.HIDE_NODE_CRYPTO) process.getBuiltinModule = (id) => (id === 'node:crypto' ? undefined : builtin(id))
      const { createWalletRpc } = await import('./src/createWalletRpc.ts')
      const { bip122, hdKeys, secp256k1Backend } = await import('./src/bip122/index.ts')
      const { activeSha256 } = await import('./src/crypto/sha256.ts')
      const wallet = createWalletRpc({ namespaces: [bip122({ keys: hdKeys({ mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about' }) })], approve: () => true })
      const answers = []
      for (const protocol of ['ecdsa', 'bip322']) {
        answers.push(await wallet.handle({ chainId: 'bip122:000000000019d6689c085ae165831e93', request: { id: 1, method: 'signMessage', params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'fallback', protocol } } }))
      }
      process.stdout.write(JSON.stringify({ backend: secp256k1Backend.name, sha256: activeSha256().name, answers }))
    `
    const runWith = async (backend: string | undefined, hideNodeCrypto = false) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...(hideNodeCrypto ? { HIDE_NODE_CRYPTO: '1' } : {}) }
      if (backend === undefined) delete env.WALLET_RPC_SECP256K1
      else env.WALLET_RPC_SECP256K1 = backend
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: new URL('../..', import.meta.url).pathname, env },
      )
      return JSON.parse(stdout) as { backend: string; sha256: string; answers: unknown[] }
    }
    // Portable all the way: noble secp256k1 and @noble/hashes SHA-256 (as in a browser), against WASM + OpenSSL.
    const [portable, wasm] = await Promise.all([runWith('noble', true), runWith(undefined)])
    expect(portable.backend).toBe('@bitcoinerlab/secp256k1')
    expect(wasm.backend).toBe('tiny-secp256k1')
    expect(portable.sha256).toBe('@noble/hashes')
    expect(wasm.sha256).toBe('node:crypto')
    expect(portable.answers).toEqual(wasm.answers)
    expect(JSON.stringify(portable.answers)).toContain('"signature"')
  })
})
