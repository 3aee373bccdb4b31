import { fixedClock } from '../core/clock.js'
import type { Namespace } from '../core/namespace.js'
import type { Approve } from '../core/review.js'
import { createWalletRpc, type WalletRpc } from '../createWalletRpc.js'
import { wireBip122 } from './bip122.js'
import { wireEip155 } from './eip155.js'
import type { WalletCliOptions } from './options.js'
import { wireSolana } from './solana.js'
import { answererFor } from './terminal.js'
import { wireTon } from './ton.js'

/** The wallet the CLI's `handle` and `properties` serve: one namespace per family whose keys were given. */
export async function createCliWallet(
  options: WalletCliOptions,
  onError: (error: unknown) => void,
): Promise<WalletRpc> {
  const namespaces = (
    await Promise.all([wireBip122(options), wireTon(options), wireEip155(options), wireSolana(options)])
  ).filter((namespace): namespace is Namespace => namespace !== undefined)
  return createWalletRpc({
    namespaces,
    approve: approverFor(options.approve),
    onError,
    ...(options.now === undefined ? {} : { clock: fixedClock(options.now) }),
  })
}

function approverFor(mode: WalletCliOptions['approve']): Approve {
  const answer = answererFor(mode)
  return (review) => answer(review, `Approve ${review.method} on ${review.chainId}?`)
}
