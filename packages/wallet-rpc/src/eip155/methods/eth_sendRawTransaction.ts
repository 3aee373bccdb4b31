import * as v from 'valibot'
import type { Address, Hex, TransactionSerializableGeneric } from 'viem'
import { InvalidParamsError, PolicyRefusedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { item } from '../../core/review.js'
import { accessOf, type ChainConfig, chainOf, type Eip155Env, nonceKey } from '../env.js'
import { recoverTransactionSender } from '../recoverSigner.js'
import { dataSchema } from '../schemas.js'
import { checkedHash } from '../transaction/hash.js'
import type { Fees } from '../transaction/request.js'
import { transactionReview } from '../transaction/review.js'
import { parseTransaction } from '../viemUtils.js'

/**
 * `eth_sendRawTransaction [raw]`: decode, recover the sender, refuse a chainId other than the request's
 * (and pre-EIP-155 transactions, which carry none and replay on every chain), review, broadcast once,
 * return the checked hash.
 */
export const sendRawTransactionParams = v.strictTuple([dataSchema])

/**
 * A signed type-4 transaction carries authorizations that delegate accounts to contracts: relayed only when
 * every one names this chain (never 0, which replays everywhere) and the delegate the wallet configured for
 * it. Anything else could hand an account to code the user never chose (MetaMask and Keplr refuse all
 * external type-4 transactions).
 */
function refuseForeignAuthorizations(
  parsed: { type?: string; authorizationList?: readonly { chainId: number; address: Address }[] },
  chain: ChainConfig,
): void {
  if (parsed.type !== 'eip7702') return
  for (const [index, authorization] of (parsed.authorizationList ?? []).entries()) {
    const reason =
      chain.delegate === undefined
        ? `no EIP-7702 delegate is configured for eip155:${chain.chainId}`
        : authorization.chainId !== chain.chainId
          ? `authorization ${index} is for chain ${authorization.chainId}${authorization.chainId === 0 ? ' (every chain)' : ''}, not ${chain.chainId}`
          : authorization.address.toLowerCase() !== chain.delegate.toLowerCase()
            ? `authorization ${index} delegates to ${authorization.address}, not to the configured delegate ${chain.delegate}`
            : undefined
    if (reason !== undefined)
      throw new PolicyRefusedError(`EIP-7702 transaction refused: ${reason}`, {
        rule: 'eip7702.foreign_authorization',
      })
  }
}

type Plan = { raw: Hex; sender: Address; nonce: number; ours: boolean }

export const sendRawTransaction = (env: Eip155Env) =>
  defineMethod({
    params: sendRawTransactionParams,
    async plan(context, [raw]) {
      const chain = chainOf(env, context)
      let parsed: TransactionSerializableGeneric & {
        chainId?: number
        nonce?: number
        type?: string
        authorizationList?: readonly { chainId: number; address: Address }[]
      }
      let sender: Address
      try {
        parsed = parseTransaction(raw) as typeof parsed
        sender = recoverTransactionSender(raw as Hex)
      } catch {
        throw new InvalidParamsError('not a signed Ethereum transaction', { path: '0' })
      }
      if (parsed.chainId === undefined) {
        throw new PolicyRefusedError(
          'pre-EIP-155 transaction without chainId: it can be replayed on any chain',
          {
            rule: 'tx.replayable',
          },
        )
      }
      if (parsed.chainId !== chain.chainId) {
        throw new PolicyRefusedError(
          `transaction chainId ${parsed.chainId} differs from the request's chain ${context.chainId}`,
          { rule: 'chain_mismatch' },
        )
      }
      refuseForeignAuthorizations(parsed, chain)
      accessOf(chain)
      const owned = (await env.keys.addresses()).some(
        (address) => address.toLowerCase() === sender.toLowerCase(),
      )
      const fees: Fees =
        parsed.maxFeePerGas !== undefined
          ? {
              type: 'eip1559',
              maxFeePerGas: parsed.maxFeePerGas,
              maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
            }
          : { type: 'legacy', gasPrice: parsed.gasPrice ?? 0n }
      const nonce = parsed.nonce ?? 0
      const review = transactionReview('Broadcast signed transaction', chain, {
        from: sender,
        to: parsed.to ?? undefined,
        value: parsed.value ?? 0n,
        data: parsed.data ?? '0x',
        gas: parsed.gas ?? 0n,
        fees,
        nonce,
      })
      review.items.unshift(item('Transaction type', parsed.type ?? 'legacy'))
      if (!owned) {
        review.warnings.push({
          code: 'raw_tx.foreign_sender',
          severity: 'info',
          message: `Signed by ${sender}, an account this wallet does not hold; the wallet only relays it.`,
        })
      }
      return { review, plan: { raw, sender, nonce, ours: owned } satisfies Plan }
    },
    async execute(context, plan: Plan): Promise<Hex> {
      const chain = chainOf(env, context)
      const returned = await accessOf(chain).sendRawTransaction(plan.raw)
      // Accepted with this nonce even if the reported hash turns out wrong.
      if (plan.ours) env.nonces.observe(nonceKey(chain.chainId, plan.sender), plan.nonce)
      return checkedHash(plan.raw, returned)
    },
  })
