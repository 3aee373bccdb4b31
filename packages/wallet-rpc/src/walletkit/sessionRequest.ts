import type { Clock } from '../core/clock.js'
import { InternalError, PolicyRefusedError } from '../core/errors.js'
import type { KeyValueStorage } from '../core/journal.js'
import { failure, type JsonRpcResponse } from '../core/jsonrpc.js'
import type { SessionRequestEvent, SessionResponse, WalletRpcLike } from './types.js'

type Verified = Partial<SessionRequestEvent['verifyContext']['verified']> | undefined

/**
 * Refuses a dapp the Verify API flags as malicious (`isScam`) or whose origin does not match its
 * registered domain (`INVALID`), before anything is planned, reviewed or signed. `UNKNOWN` passes; the
 * review carries the validation so the wallet can show it.
 */
export function originRefusal(verified: Verified): PolicyRefusedError | undefined {
  if (verified?.isScam === true) {
    return new PolicyRefusedError('The Verify API flags this dapp as malicious.', { rule: 'origin.scam' })
  }
  if (verified?.validation === 'INVALID') {
    return new PolicyRefusedError("The request's origin does not match the dapp's verified domain.", {
      rule: 'origin.invalid',
    })
  }
  return undefined
}

/** WalletConnect expiries are Unix seconds; a request whose expiry has passed is answered 8000. */
export function isExpired(expiryTimestamp: unknown, clock: Clock): boolean {
  return (
    typeof expiryTimestamp === 'number' &&
    Number.isFinite(expiryTimestamp) &&
    expiryTimestamp * 1000 <= clock()
  )
}

/**
 * The one response to a `session_request`: the origin checked first, then `wallet.handle()`, which takes the
 * origin from `verifyContext.verified`, answers 8000 once `expiryTimestamp` has passed (by the wallet's clock or,
 * through `expired`, the adapter's) and replays from the request journal a request it already answered or
 * sent, even expired: the dapp gets the hash of what was sent.
 * Never throws; the response always carries the request's id, and an error keeps its code as a JSON-RPC
 * error object.
 */
export async function answerSessionRequest(
  wallet: Pick<WalletRpcLike, 'handle'>,
  event: SessionRequestEvent,
  clock: Clock,
  onError: (error: unknown) => void,
  journal?: KeyValueStorage,
): Promise<SessionResponse> {
  try {
    const refusal = originRefusal(event.verifyContext?.verified)
    if (refusal) return toSessionResponse(failure(event.id, refusal), event.id)
    // Expired by the adapter's clock: only what the journal holds for it answers (8000 otherwise), unreviewed.
    const expired = isExpired(event.params?.request?.expiryTimestamp, clock)
    const response = await wallet.handle(event, {
      ...(journal === undefined ? {} : { journal }),
      ...(expired ? { expired } : {}),
    })
    if (!isResponse(response))
      throw new TypeError('wallet.handle() returned something that is not a response')
    return toSessionResponse(response, event.id)
  } catch (error) {
    // handle() never throws by contract; a wallet object that does still answers, generically.
    onError(error)
    return toSessionResponse(failure(event.id, new InternalError()), event.id)
  }
}

function isResponse(value: unknown): value is JsonRpcResponse {
  return typeof value === 'object' && value !== null && ('result' in value || 'error' in value)
}

/**
 * The SDK types `error.data` as a string; JSON-RPC allows any value and ours is structured (a field path,
 * a policy rule), so it is sent as is. The id is the event's, whatever the wallet echoed.
 */
function toSessionResponse(response: JsonRpcResponse, id: number): SessionResponse {
  return 'error' in response
    ? ({ id, jsonrpc: '2.0', error: response.error } as SessionResponse)
    : { id, jsonrpc: '2.0', result: response.result }
}
