import { ecc } from '../../crypto/secp256k1.js'
import { taprootOutputKey } from '../encoding.js'
import type { KeyPath, KeyProvider } from '../types.js'

/** What a hardware wallet, MPC service or remote signer implements: public keys and sign operations. */
export type ExternalSignerOptions = {
  /** `hd`: any path of `account`; `single`: one key of `addressType` (see `KeyProvider`). */
  kind?: KeyProvider['kind']
  account?: number
  addressType?: KeyProvider['addressType']
  publicKey(path: KeyPath): Uint8Array | Promise<Uint8Array>
  signEcdsa(path: KeyPath, hash: Uint8Array): Promise<Uint8Array>
  signTaproot(path: KeyPath, hash: Uint8Array, auxRand?: Uint8Array): Promise<Uint8Array>
  /** Milliseconds a signature may take (a device waiting for its button) before the request fails, -32603. */
  timeoutMs?: number
}

/**
 * Wraps an external signer as a `KeyProvider` that trusts nothing it returns: public keys must be valid
 * compressed points, and every signature is verified against the key before it is used (a faulty or
 * compromised device must not make us hand out a signature that does not verify). High-S ECDSA is refused.
 */
export function externalSigner(signer: ExternalSignerOptions): KeyProvider {
  const publicKey = async (path: KeyPath): Promise<Uint8Array> => {
    const key = await signer.publicKey(path)
    if (!(key instanceof Uint8Array) || key.length !== 33 || !ecc.isPoint(key)) {
      throw new Error('external signer returned an invalid public key')
    }
    return key
  }
  return {
    kind: signer.kind ?? 'hd',
    ...(signer.timeoutMs === undefined ? {} : { timeoutMs: signer.timeoutMs }),
    account: signer.account ?? 0,
    ...(signer.addressType === undefined ? {} : { addressType: signer.addressType }),
    publicKey,
    async signEcdsa(path, hash) {
      const signature = await signer.signEcdsa(path, hash)
      // `verify(..., strict = true)` also refuses high-S signatures.
      if (
        !(signature instanceof Uint8Array) ||
        signature.length !== 64 ||
        !ecc.verify(hash, await publicKey(path), signature, true)
      ) {
        throw new Error('external signer returned an ECDSA signature that does not verify')
      }
      return signature
    },
    async signTaproot(path, hash, auxRand) {
      const signature = await signer.signTaproot(path, hash, auxRand)
      const outputKey = taprootOutputKey(ecc, (await publicKey(path)).subarray(1))
      if (
        !(signature instanceof Uint8Array) ||
        signature.length !== 64 ||
        !ecc.verifySchnorr(hash, outputKey, signature)
      ) {
        throw new Error('external signer returned a taproot signature that does not verify')
      }
      return signature
    },
  }
}
