import { concatBytes } from '@noble/hashes/utils.js'
import { nobleSha256 } from './nobleHashes.js'
import { checkedSha256, chosen, type Sha256Backend } from './registry.js'

export type { Sha256Backend } from './registry.js'

type NodeCrypto = typeof import('node:crypto')

const asBytes = (digest: Uint8Array): Uint8Array =>
  new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)

/** @noble/hashes (audited, pure JS): everywhere; in Node loaded at its first hash (see nobleHashes.ts). */
export const portableSha256: Sha256Backend = {
  name: '@noble/hashes',
  hash: (data) => nobleSha256()(data),
}

/**
 * OpenSSL's one-shot `crypto.hash` where Node is (about 2x faster than @noble/hashes and than `createHash`
 * on the short inputs signing hashes), reached through process.getBuiltinModule so that bundles for
 * browsers never see a `node:crypto` import; undefined elsewhere.
 */
export function nodeSha256(): Sha256Backend | undefined {
  const crypto = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  const hash = crypto?.hash
  if (typeof hash !== 'function') return undefined
  return { name: 'node:crypto', hash: (data) => asBytes(hash('sha256', data, 'buffer') as never) }
}

/** The active backend: injected, else node:crypto in Node, else @noble/hashes (chosen at the first call). */
export function activeSha256(): Sha256Backend {
  chosen.sha256 ??= nodeSha256() ?? portableSha256
  return chosen.sha256
}

/**
 * SHA-256 of a constant (a BIP-340 tag, a fixed midstate), often computed at import and cached for the
 * process: always with this runtime's own implementation (OpenSSL, else @noble/hashes), never an injected
 * backend (checked on one input only), and without choosing one, so a wallet can still inject its own and
 * `wallet.backends()` says "unused" until a request hashes.
 */
export function constantSha256(data: Uint8Array): Uint8Array {
  return (nodeSha256() ?? portableSha256).hash(data)
}

/** Makes `backend` the one used from now on (process-wide), after it hashed FIPS 180-2's "abc" right. */
export function useSha256(backend: Sha256Backend): void {
  chosen.sha256 = checkedSha256(backend)
}

/** SHA-256 of one input, or of several parts as if concatenated. */
export const sha256 = (...parts: Uint8Array[]): Uint8Array =>
  activeSha256().hash(parts.length === 1 ? parts[0]! : concatBytes(...parts))
