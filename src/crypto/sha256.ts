import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js'
import { concatBytes } from '@noble/hashes/utils.js'

type NodeCrypto = typeof import('node:crypto')

// OpenSSL's one-shot `crypto.hash` where Node is (about 2x faster than @noble/hashes and than `createHash`
// on the short inputs signing hashes), reached through process.getBuiltinModule so that bundles for
// browsers never see a `node:crypto` import; @noble/hashes (audited, pure JS) elsewhere. Same bytes either way.
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
const nodeHash = typeof nodeCrypto?.hash === 'function' ? nodeCrypto.hash : undefined

export const sha256Backend: 'node:crypto' | '@noble/hashes' = nodeHash ? 'node:crypto' : '@noble/hashes'

const asBytes = (digest: Uint8Array): Uint8Array =>
  new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)

/** SHA-256 of one input, or of several parts as if concatenated. */
export const sha256: (...parts: Uint8Array[]) => Uint8Array = nodeHash
  ? (...parts) =>
      // Buffer.concat (native) then one call beats createHash + an update per part for short inputs.
      asBytes(nodeHash('sha256', parts.length === 1 ? parts[0]! : Buffer.concat(parts), 'buffer') as never)
  : (...parts) => nobleSha256(parts.length === 1 ? parts[0]! : concatBytes(...parts))
