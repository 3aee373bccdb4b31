import { WalletRpcError } from './errors.js'

/** -32603 naming the key provider that did not answer in time (a hung hardware wallet, a dead remote signer). */
export class KeyProviderTimeoutError extends WalletRpcError {
  static readonly code = -32603
  override name = 'KeyProviderTimeoutError'
  constructor(timeoutMs: number) {
    super(KeyProviderTimeoutError.code, 'Key provider timed out.', {
      data: { reason: `the key provider did not answer within ${timeoutMs} ms (its timeoutMs)` },
    })
  }
}

/**
 * `work`, or a KeyProviderTimeoutError after `timeoutMs` (none when undefined). A signature that arrives
 * later is dropped: the request has already failed, so nothing signed late is ever used or broadcast.
 */
export async function withKeyTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new KeyProviderTimeoutError(timeoutMs)), timeoutMs)
  })
  try {
    return await Promise.race([work, timedOut])
  } finally {
    clearTimeout(timer)
  }
}
