import type { AssetEffect } from '../core/expectation.js'
import { type Destination, friendly } from './address.js'
import type { FastCell } from './cells.js'
import { decodePayload } from './payloadReview.js'

/**
 * What `ton_sendMessage` moves, decoded from its exact messages (core `AssetEffect`): TON sent to each
 * destination whose message carries no body or a comment. A message with any other body (a jetton or NFT
 * transfer: which jetton a jetton wallet holds needs a chain read) or a StateInit is undefined: the wallet cannot
 * tell what it moves. Recipients are named in the wallet's own form (user-friendly, non-bounceable).
 */
export function messageEffects(
  chainId: string,
  account: string,
  messages: readonly {
    destination: Destination
    amount: bigint
    body: FastCell | undefined
    init: unknown
  }[],
): AssetEffect[] | undefined {
  const effects: AssetEffect[] = []
  for (const { destination, amount, body, init } of messages) {
    if (init !== undefined) return undefined
    if (body !== undefined) {
      const decoded = decodePayload(body, chainId)
      // A comment (plain or encrypted) is a single line; a transfer of jettons or NFTs is a group.
      if (decoded.opaque || 'items' in decoded.item) return undefined
    }
    effects.push({
      chainId,
      account,
      asset: 'native',
      amount,
      recipient: friendly(destination.address, chainId, false),
      kind: 'transfer',
      form: 'TON transfer',
    })
  }
  return effects
}
