import { encodeFunctionData, erc20Abi } from 'viem'
import { type EvmRouteInput, evmRouteBase } from '../gatewayOptions.js'
import { newId } from '../ids.js'
import type { EvmRoute, WalletRpcAction } from '../model.js'

/**
 * A live EVM option: one `eth_sendTransaction` of ERC-20 `transfer(treasury, amount)` that the wallet signs and
 * broadcasts. Nothing to build, so it is resolved at once; confirm checks the returned hash for form only and the
 * live engine then judges the payment by the transaction's receipt on the chain (its `Transfer` logs), not by
 * the calldata the wallet claims to have sent.
 */
export function createLiveEvmRoute(input: EvmRouteInput & { sinceBlock: bigint }): EvmRoute {
  const base = evmRouteBase(input)
  const { chainId, address, token, payee, tokenValue } = base
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [payee, tokenValue] })
  const transfer: WalletRpcAction = {
    type: 'walletRpc',
    data: {
      chain_id: chainId,
      method: 'eth_sendTransaction',
      params: [{ from: address, to: token.address, data, value: '0x0' }],
    },
  }
  return {
    ...base,
    sinceBlock: input.sinceBlock,
    actions: [transfer],
    // No build action: fetch has nothing to resolve, and this value is never handed out.
    buildData: newId('build_', 32),
    resolved: {
      actions: [],
      expected: [
        {
          kind: 'transaction',
          chainId: Number(chainId.slice('eip155:'.length)),
          from: address,
          to: token.address,
          data,
        },
      ],
    },
    forcedExpired: false,
  }
}
