/**
 * @ton/core (CommonJS) reads the `Buffer` global while it loads, so a page or a Hermes app without it
 * would stop with "Buffer is not defined" from deep inside that library. The modules that load @ton/core
 * (wallet-rpc/ton, wallet-rpc/verify) import this check first, and `ton()` runs it again, so the error
 * names the missing global and the fix instead.
 */
export function assertBufferGlobal(): void {
  const buffer: unknown = (globalThis as { Buffer?: unknown }).Buffer
  if (typeof buffer !== 'function' || typeof (buffer as { alloc?: unknown }).alloc !== 'function') {
    throw new ReferenceError(
      "wallet-rpc/ton and wallet-rpc/verify need a global Buffer (@ton/core uses it): install the 'buffer' package and put `import { Buffer } from 'buffer'; globalThis.Buffer = Buffer` in a module you import before wallet-rpc.",
    )
  }
  // @ton/core calls Buffer methods on `subarray` results (every cell it builds does), which only works where
  // typed arrays honour Symbol.species. Hermes does not (facebook/hermes#1495).
  const part = (buffer as unknown as { alloc(size: number): Uint8Array }).alloc(1).subarray(0)
  if (!(part instanceof buffer)) {
    throw new TypeError(
      "wallet-rpc/ton and wallet-rpc/verify need Buffer#subarray to return a Buffer (@ton/core relies on it), and this runtime's typed arrays lack Symbol.species (Hermes: facebook/hermes#1495): add the Buffer#subarray line of the README's React Native setup to the module that sets globalThis.Buffer.",
    )
  }
}

assertBufferGlobal()
