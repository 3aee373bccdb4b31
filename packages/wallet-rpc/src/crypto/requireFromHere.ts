import { nodeRequire } from './nodeRequire.js'

type NodeModule = { createRequire(from: string): (id: string) => unknown }

/**
 * Node only (the package's `browser` field keeps every file that imports this out of bundles for browsers,
 * extensions and Hermes, which cannot parse `import.meta`): `require(id)` from this package's own location,
 * else from where `nodeRequire` looks (a bundle for Node whose `import.meta.url` is not a file).
 */
export function requireFromHere<T>(id: string): T {
  const node = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:module') as NodeModule | undefined
  try {
    if (node !== undefined) return node.createRequire(import.meta.url)(id) as T
  } catch {
    // Not resolvable from this file's location (a bundle): try the working directory below.
  }
  const loaded = nodeRequire<T>(id)
  if (loaded === undefined)
    throw new Error(
      `wallet-rpc: ${id} does not load here; in a bundle, resolve wallet-rpc's "browser" field or keep ${id} beside it`,
    )
  return loaded
}
