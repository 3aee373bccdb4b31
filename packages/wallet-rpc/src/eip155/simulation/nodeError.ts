import { WalletRpcError } from '../../core/errors.js'
import { printable, revertReason } from './revertReason.js'

/** A node's JSON-RPC error as far as it can be read from what a provider threw. */
export type NodeError = { code: number | undefined; message: string; data: unknown }

/**
 * The node's error inside whatever a provider threw: our `Eip155RpcError`, a viem error (the JSON-RPC
 * error sits in its `cause` chain), a ProviderError wrapping either, or an EIP-1193 `{ code, message,
 * data }` object. The message is the node's own words, cleaned and cut, never a URL-bearing client message.
 */
export function nodeErrorOf(error: unknown): NodeError {
  let found: NodeError | undefined
  let reason: string | undefined
  let cause = error
  for (let depth = 0; cause !== null && typeof cause === 'object' && depth < 10; depth++) {
    const entry = cause as { code?: unknown; message?: unknown; details?: unknown; data?: unknown }
    if (cause instanceof WalletRpcError) {
      const data = cause.data as { reason?: unknown } | undefined
      if (typeof data?.reason === 'string') reason ??= data.reason
    } else if (found === undefined && typeof entry.code === 'number') {
      const words = typeof entry.details === 'string' && entry.details !== '' ? entry.details : entry.message
      found = { code: entry.code, message: typeof words === 'string' ? words : '', data: entry.data }
    }
    cause = (cause as { cause?: unknown }).cause
  }
  const message = found?.message || reason || (error instanceof Error ? error.message : '')
  return {
    code: found?.code,
    message: message.includes('://') || message === '' ? 'provider request failed' : printable(message),
    data: found?.data,
  }
}

/** A call that ran and reverted (JSON-RPC code 3, or a node that only says so in words). */
export function isRevert(error: NodeError): boolean {
  return error.code === 3 || /execution reverted|\brevert(ed)?\b/i.test(error.message)
}

/** The reason of a revert error: its revert data decoded, else the node's words after "execution reverted". */
export function revertReasonOf(error: NodeError): string {
  if (typeof error.data === 'string' && error.data !== '0x') return revertReason(error.data)
  return error.message.replace(/^execution reverted:?\s*/i, '') || 'reverted without a reason'
}
