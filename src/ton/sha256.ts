import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js'

type NodeCrypto = typeof import('node:crypto')

// process.getBuiltinModule (Node >= 20.16) reaches node:crypto synchronously without a static import, so
// bundles for browsers never see one; elsewhere @noble/hashes (audited, pure JS) does the work.
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined

/** SHA-256 by OpenSSL where available (one-shot `crypto.hash`), else by @noble/hashes; same bytes. */
export const sha256: (data: Uint8Array) => Uint8Array =
  typeof nodeCrypto?.hash === 'function'
    ? (data) => nodeCrypto.hash('sha256', data, 'buffer') as unknown as Uint8Array
    : nobleSha256
