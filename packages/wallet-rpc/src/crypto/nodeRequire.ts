type NodeModule = { createRequire(path: string): { (id: string): unknown; resolve(id: string): string } }
type NodeProcess = { getBuiltinModule?: (id: string) => unknown; cwd?: () => string }

/**
 * Node's `require`, reached through `process.getBuiltinModule` so that no `node:` import and no
 * `import()` exists for a bundler, a service worker or Hermes to trip over; undefined outside Node. It
 * resolves from this package's own location when the application can resolve `wallet-rpc`, else from the
 * working directory (`import.meta.url` would say where we are, but Hermes cannot parse it).
 */
export function nodeRequire<T>(id: string): T | undefined {
  const process = (globalThis as { process?: NodeProcess }).process
  const node = process?.getBuiltinModule?.('node:module') as NodeModule | undefined
  if (node === undefined || typeof process?.cwd !== 'function') return undefined
  const fromCwd = node.createRequire(`${process.cwd()}/`)
  const anchors: Array<() => string> = [() => fromCwd.resolve('wallet-rpc'), () => `${process.cwd?.()}/`]
  for (const anchor of anchors) {
    try {
      return node.createRequire(anchor())(id) as T
    } catch {
      // Not resolvable from there: try the next place, then give up (the caller has a portable fallback).
    }
  }
  return undefined
}
