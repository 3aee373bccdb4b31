/**
 * @ton/core (CommonJS) reads the `Buffer` global while it loads, so a page or a Hermes app without it
 * would stop with "Buffer is not defined" from deep inside that library. The modules that load @ton/core
 * (wallet-rpc/ton, wallet-rpc/verify) import this check first, and `ton()` runs it again, so the error
 * names the missing global and the fix instead.
 */
export function assertBufferGlobal(): void {
  const buffer: unknown = (globalThis as { Buffer?: unknown }).Buffer
  if (typeof buffer === 'function' && typeof (buffer as { from?: unknown }).from === 'function') return
  throw new ReferenceError(
    "wallet-rpc/ton and wallet-rpc/verify need a global Buffer (@ton/core uses it): install the 'buffer' package and put `import { Buffer } from 'buffer'; globalThis.Buffer = Buffer` in a module you import before wallet-rpc.",
  )
}

assertBufferGlobal()
