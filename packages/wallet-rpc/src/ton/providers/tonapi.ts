import { splitCredentials } from '../../core/http.js'
import { postToEmulator, readAnswer } from '../emulation/post.js'
import { readTonapiAnswer } from '../emulation/tonapiAnswer.js'
import type { TonEmulator } from '../types.js'

export type TonapiOptions = {
  /** Sent as `Authorization: Bearer …`; never echoed in errors. */
  apiKey?: string
  /** Injected for tests and non-Node runtimes; the global `fetch` by default. */
  fetch?: typeof fetch
  /** Default 5 s. */
  timeoutMs?: number
}

/**
 * tonapi's wallet emulator, `POST /v2/wallet/emulate` with `{ boc }` (tonkeeper/opentonapi `api/openapi.yml`),
 * for `toncenter(url, { emulator: tonapi() })` or any provider's `emulate`. The BoC is the unsigned external
 * message (64 zero bytes for the signature): the endpoint skips the wallet's signature check
 * (`pkg/api/event_handlers.go` `EmulateMessageToWallet`, `WithIgnoreSignatureDepth(1)`) and takes an undeployed
 * wallet's code from the message's StateInit. `https://testnet.tonapi.io` serves testnet.
 */
export function tonapi(url = 'https://tonapi.io', options: TonapiOptions = {}): TonEmulator {
  const { url: credentialFree, authorization } = splitCredentials(url, 'tonapi')
  if (authorization !== undefined && options.apiKey !== undefined) {
    throw new TypeError('tonapi: give the API key or URL credentials, not both')
  }
  const base = credentialFree.replace(/\/+$/, '').replace(/\/v2$/, '')
  const headers: Record<string, string> = {}
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`
  else if (authorization !== undefined) headers.authorization = authorization
  const name = `tonapi (${new URL(base).host})`
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 5_000

  return {
    async emulate(request) {
      const answer = await postToEmulator({
        fetch: fetchImpl,
        url: `${base}/v2/wallet/emulate`,
        headers,
        body: { boc: Buffer.from(request.unsignedBoc).toString('base64') },
        signal: request.signal,
        timeoutMs,
        what: 'tonapi wallet/emulate',
      })
      return readAnswer('tonapi wallet/emulate', () =>
        readTonapiAnswer(answer, request.wallet.rawAddress, name),
      )
    },
  }
}
