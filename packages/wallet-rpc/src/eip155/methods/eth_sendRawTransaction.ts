import * as v from 'valibot'
import type { Address, Hex, TransactionSerializableGeneric } from 'viem'
import { InvalidParamsError, PolicyRefusedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { group, item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { type ParsedAuthorization, recoverAuthority } from '../eip7702/authorization.js'
import { accessOf, type ChainConfig, chainOf, type Eip155Env, nonceKey } from '../env.js'
import { recoverTransactionSender } from '../recoverSigner.js'
import { dataSchema } from '../schemas.js'
import { checkedHash } from '../transaction/hash.js'
import type { Fees } from '../transaction/request.js'
import { oneTransactionSends, type SignedTransactions } from '../transaction/resend.js'
import { transactionReview } from '../transaction/review.js'
import { getAddress, isAddressEqual, keccak256, parseTransaction } from '../viemUtils.js'

/**
 * `eth_sendRawTransaction [raw]`: decode, recover the sender, refuse a chainId other than the request's
 * (and pre-EIP-155 transactions, which carry none and replay on every chain), review, broadcast once,
 * return the checked hash.
 */
export const sendRawTransactionParams = v.strictTuple([dataSchema])

/**
 * A signed type-4 transaction's authorizations, each checked by its authority — the account recovered from
 * the authorization's own signature:
 * - ours (an account this wallet holds): relayed only when it names this chain (never 0, which replays on
 *   every chain) and the delegate the wallet configured for it; anything else could hand the user's account
 *   to code they never chose (MetaMask and Keplr refuse all external type-4 transactions);
 * - not ours: held to the same rule (issue 32: an authorization to anything but the configured delegate is
 *   refused), and when it passes, relayed with a `caution` naming the authority — it changes that account, not
 *   the user's;
 * - recovering to no account: refused (EIP-7702 would skip it; nobody can say whose it is).
 */
function reviewAuthorizations(
  authorizations: readonly ParsedAuthorization[],
  chain: ChainConfig,
  owned: readonly Address[],
  transaction: { sender: Address; nonce: number },
): { items: ReviewItem[]; warnings: ReviewWarning[]; selfAuthorizationNonce: number | undefined } {
  const items: ReviewItem[] = []
  const warnings: ReviewWarning[] = []
  let selfAuthorizationNonce: number | undefined
  for (const [index, authorization] of authorizations.entries()) {
    const authority = recoverAuthority(authorization)
    if (authority === undefined)
      throw new PolicyRefusedError(
        `EIP-7702 transaction refused: authorization ${index}'s signature recovers to no account`,
        { rule: 'eip7702.invalid_authorization' },
      )
    const target = `${getAddress(authorization.address)} on ${authorization.chainId === 0 ? 'every chain (chain id 0)' : `chain ${authorization.chainId}`}`
    items.push(
      group(`EIP-7702 authorization ${index + 1} of ${authorizations.length}`, [
        item('Account (recovered signer)', authority),
        item('Delegates to', target),
        item('Authorization nonce', String(authorization.nonce)),
      ]),
    )
    const ours = owned.some((address) => isAddressEqual(address, authority))
    const reason =
      chain.delegate === undefined
        ? `no EIP-7702 delegate is configured for eip155:${chain.chainId}`
        : authorization.chainId !== chain.chainId
          ? `authorization ${index} is for chain ${authorization.chainId}${authorization.chainId === 0 ? ' (every chain)' : ''}, not ${chain.chainId}`
          : !isAddressEqual(authorization.address, chain.delegate)
            ? `authorization ${index} delegates to ${getAddress(authorization.address)}, not to the configured delegate ${chain.delegate}`
            : undefined
    if (reason !== undefined)
      throw new PolicyRefusedError(
        `EIP-7702 transaction refused for ${ours ? 'your account' : 'the account'} ${authority}: ${reason}`,
        { rule: 'eip7702.foreign_authorization' },
      )
    // Self-sponsored: the sender's nonce is bumped before the list is processed, so it uses nonce + 1.
    if (isAddressEqual(authority, transaction.sender) && authorization.nonce === transaction.nonce + 1)
      selfAuthorizationNonce = authorization.nonce
    if (!ours)
      warnings.push({
        code: 'eip7702.foreign_authority',
        severity: 'caution',
        message: `Authorization ${index} delegates ${authority}, an account this wallet does not hold, to ${target}; the wallet only relays it.`,
      })
  }
  return { items, warnings, selfAuthorizationNonce }
}

type Plan = {
  raw: Hex
  sender: Address
  nonce: number
  ours: boolean
  /** The nonce a self-sponsored authorization of the sender will use (nonce + 1), held like a batch's. */
  authorizationNonce: number | undefined
}

export const sendRawTransaction = (env: Eip155Env) =>
  defineMethod({
    params: sendRawTransactionParams,
    async plan(context, [raw]) {
      const chain = chainOf(env, context)
      let parsed: TransactionSerializableGeneric & {
        chainId?: number
        nonce?: number
        type?: string
        authorizationList?: readonly ParsedAuthorization[]
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
      const addresses = await env.keys.addresses()
      const nonce = parsed.nonce ?? 0
      const delegation =
        parsed.type === 'eip7702'
          ? reviewAuthorizations(parsed.authorizationList ?? [], chain, addresses, { sender, nonce })
          : { items: [], warnings: [], selfAuthorizationNonce: undefined }
      accessOf(chain)
      const owned = addresses.some((address) => isAddressEqual(address, sender))
      const fees: Fees =
        parsed.maxFeePerGas !== undefined
          ? {
              type: 'eip1559',
              maxFeePerGas: parsed.maxFeePerGas,
              maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
            }
          : { type: 'legacy', gasPrice: parsed.gasPrice ?? 0n }
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
      review.items.push(...delegation.items)
      review.warnings.push(...delegation.warnings)
      if (!owned) {
        review.warnings.push({
          code: 'raw_tx.foreign_sender',
          severity: 'info',
          message: `Signed by ${sender}, an account this wallet does not hold; the wallet only relays it.`,
        })
      }
      const plan: Plan = {
        raw,
        sender,
        nonce,
        ours: owned,
        authorizationNonce: delegation.selfAuthorizationNonce,
      }
      return { review, plan }
    },
    async execute(context, plan: Plan, journal): Promise<Hex> {
      const chain = chainOf(env, context)
      await journal.signed(signedOf(chain.chainId, plan), [keccak256(plan.raw)])
      const returned = await accessOf(chain).sendRawTransaction(plan.raw)
      await journal.broadcast({ hash: returned })
      // Accepted with this nonce (and its self-sponsored authorization's) even if the reported hash is wrong.
      if (plan.ours)
        env.nonces.observe(nonceKey(chain.chainId, plan.sender), plan.nonce, plan.authorizationNonce)
      return checkedHash(plan.raw, returned)
    },
    sends: oneTransactionSends(env),
  })

/** The dapp's signed bytes, as the journal records them before they are relayed. */
function signedOf(chainId: number, plan: Plan): SignedTransactions {
  return {
    chainId,
    transactions: [
      {
        raw: plan.raw,
        from: plan.sender,
        nonce: plan.nonce,
        ...(plan.authorizationNonce === undefined ? {} : { authorizationNonce: plan.authorizationNonce }),
        ours: plan.ours,
      },
    ],
  }
}
