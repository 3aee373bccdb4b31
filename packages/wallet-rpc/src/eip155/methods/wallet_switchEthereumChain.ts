import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import type { Eip155Env } from '../env.js'
import { UnrecognizedChainError } from '../errors.js'
import { quantitySchema } from '../schemas.js'

/**
 * `wallet_switchEthereumChain [{ chainId }]` (EIP-3326): null when the wallet serves the chain, 4902 when
 * it does not (the dapp may then `wallet_addEthereumChain`). The target is the params' `chainId`, never the
 * request's: WalletConnect's UniversalProvider sends this request on the session's first chain. Every
 * request names its chain, so there is no "current chain" to change here; the WalletKit adapter adds the
 * chain to the session and emits `chainChanged` (`wallet-rpc/walletkit`, chainSwitch.ts).
 */
export const switchEthereumChainParams = v.strictTuple([
  v.strictObject(
    { chainId: quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1') },
    'must be { chainId } with a hex chain id',
  ),
])

export const switchEthereumChain = (env: Eip155Env) =>
  defineMethod({
    params: switchEthereumChainParams,
    plan(_context, [{ chainId }]) {
      const target = `eip155:${chainId}`
      if (!env.chains.has(target)) throw new UnrecognizedChainError(`${target} is not served by this wallet`)
      return { review: null, plan: target }
    },
    execute(): null {
      return null
    },
  })
