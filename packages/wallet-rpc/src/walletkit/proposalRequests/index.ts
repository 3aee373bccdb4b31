import type { AuthTypes, EngineTypes, ProposalTypes, SessionTypes } from '@walletconnect/types'
import type { HandleInput } from '../../core/envelope.js'
import type { KeyValueStorage } from '../../core/journal.js'
import type { WalletRpcLike } from '../walletRpcLike.js'
import {
  type AuthenticationReview,
  type AuthenticationStep,
  type ProposerOrigin,
  planAuthentication,
} from './authentication.js'
import { type PaymentSources, type PaymentStep, planWalletPay, type WalletPayReview } from './walletPay.js'

export type { AuthenticationProof, AuthenticationReview, ProposerOrigin } from './authentication.js'
export type { AssetInfo, PaymentOptionReview, PaymentSources, WalletPayReview } from './walletPay.js'

/** The requests a dapp put inside its session proposal (`proposal.requests`), as the connect review shows them. */
export type ProposalRequestsReview = {
  /** One-click sign-in (CAIP-122 `authentication`, TON Connect's ton_proof): one entry per request. */
  authentication: AuthenticationReview[]
  /** Pay at connect: the accepted payments, decoded, and the one approval pays. */
  walletPay?: WalletPayReview
}

/**
 * What `approveSession` answers: `true` approves the session with every sign-in and the payment the review
 * offers, `false` rejects it; an object approves the session with only the requests it sets to `true`.
 */
export type SessionApprovalAnswer = boolean | { authentication?: boolean; walletPay?: boolean }

export type ProposalRequestsPlan = {
  review: ProposalRequestsReview
  authentication: AuthenticationStep[]
  payment: PaymentStep | undefined
  /** Unix seconds after which the payment is not made: the offer's expiry or the proposal's, the earlier. */
  paymentExpiry: number | undefined
}

/**
 * The review and plan of `proposal.requests`, or undefined when the proposal carries none. A malformed request
 * is refused with its reason in the review; this throws only when the requests cannot be read at all (a Proxy
 * or a getter that throws), and the adapter then rejects the proposal.
 */
export async function planProposalRequests(
  wallet: Pick<WalletRpcLike, 'supported'>,
  proposal: ProposalTypes.Struct,
  namespaces: SessionTypes.Namespaces,
  proposer: ProposerOrigin,
  now: number,
  sources: PaymentSources,
  report: (error: unknown) => void,
): Promise<ProposalRequestsPlan | undefined> {
  const requests = (proposal as { requests?: unknown }).requests
  if (typeof requests !== 'object' || requests === null) return undefined
  const field = (name: string) =>
    Object.hasOwn(requests, name) ? (requests as Record<string, unknown>)[name] : undefined
  const supported = wallet.supported()
  const authentication = planAuthentication(field('authentication'), namespaces, supported, proposer, now)
  const walletPay =
    field('walletPay') === undefined
      ? undefined
      : await planWalletPay(field('walletPay'), namespaces, supported, sources, now, report)
  return {
    review: {
      authentication: authentication.reviews,
      ...(walletPay === undefined ? {} : { walletPay: walletPay.review }),
    },
    authentication: authentication.steps,
    payment: walletPay?.step,
    paymentExpiry: earliest(walletPay?.review.expiry, proposal.expiryTimestamp),
  }
}

/**
 * Runs what the user approved through the wallet's own method path (`wallet.handle`: validation, sign-in rules,
 * simulation, policy, nonce, the broadcast check, and the wallet's `approve` with `context` naming the proposal)
 * and collects the answers approval sends. A step the wallet refuses or fails is left out (reported); the
 * session settles either way.
 */
export async function answerProposalRequests(
  wallet: Pick<WalletRpcLike, 'handle'>,
  plan: ProposalRequestsPlan,
  answer: SessionApprovalAnswer,
  proposalId: number,
  proposer: ProposerOrigin,
  clock: () => number,
  report: (error: unknown) => void,
  journal?: KeyValueStorage,
): Promise<EngineTypes.ApproveParams['proposalRequestsResponses'] | undefined> {
  const wants = (request: 'authentication' | 'walletPay') =>
    answer === true || (typeof answer === 'object' && answer[request] === true)
  const run = async (
    step: {
      chainId: string
      method: string
      params: unknown
      warnings?: AuthenticationStep['warnings']
      expected?: PaymentStep['expected']
      expiryTimestamp?: number | undefined
    },
    id: string,
    what: string,
    requestKey = JSON.stringify(['proposal', proposalId, id]),
    keepMs?: number,
  ) => {
    const input: HandleInput = {
      chainId: step.chainId,
      request: {
        id: `proposal-${proposalId}-${id}`,
        jsonrpc: '2.0',
        method: step.method,
        params: step.params,
      },
      ...(proposer.origin === undefined ? {} : { origin: proposer.origin }),
      ...(proposer.validation === undefined ? {} : { originValidation: proposer.validation }),
      context: { 'session proposal': String(proposalId), 'requested at connect': what },
      ...(step.expiryTimestamp === undefined ? {} : { expiryTimestamp: step.expiryTimestamp }),
      ...(step.warnings === undefined || step.warnings.length === 0 ? {} : { warnings: step.warnings }),
      ...(step.expected === undefined ? {} : { expected: step.expected }),
      // Through the request journal: a proposal delivered again (a restart) replays what its steps did. A payment
      // is the same payment by what it pays (its params carry a fresh blockhash on Solana), not by its bytes.
      requestKey,
      ...(step.expected === undefined ? {} : { identity: step.expected }),
    }
    const response = await wallet.handle(input, {
      ...(journal === undefined ? {} : { journal }),
      ...(keepMs === undefined ? {} : { keepMs }),
    })
    if (!('error' in response)) return response.result
    report(new Error(`connect-time ${what} on ${step.chainId} not done: ${response.error.message}`))
    return undefined
  }
  const responses: NonNullable<EngineTypes.ApproveParams['proposalRequestsResponses']> = {}
  if (wants('authentication')) {
    const cacaos: AuthTypes.Cacao[] = []
    for (const step of plan.authentication) {
      const result = await run(
        step,
        `authentication-${step.index}-${step.chainId}`,
        `sign-in ${step.index + 1}`,
      )
      if (result === undefined) continue
      const cacao = step.toCacao(result)
      if (cacao === undefined) report(new Error(`${step.method} answered no signature to build a CACAO from`))
      else cacaos.push(cacao)
    }
    if (cacaos.length > 0) responses.authentication = cacaos
  }
  const payment = plan.payment
  if (wants('walletPay') && payment !== undefined) {
    if (plan.paymentExpiry !== undefined && plan.paymentExpiry * 1000 <= clock()) {
      report(new Error('the walletPay offer expired before it was paid; nothing was paid'))
    } else {
      let params: unknown
      try {
        params = await payment.params()
      } catch (error) {
        report(new Error(`the walletPay payment could not be built; nothing was paid: ${String(error)}`))
      }
      const result =
        params === undefined
          ? undefined
          : await run(
              {
                chainId: payment.chainId,
                method: payment.method,
                params,
                expected: payment.expected,
                // A late approval (or a signer confirming on its device) past it pays nothing: the dapp stopped
                // waiting, and a proposal that expired is never approved.
                expiryTimestamp: plan.paymentExpiry,
              },
              `walletPay-${payment.option.index}`,
              `payment ${payment.option.display ?? ''}`,
              // One order is paid once by this wallet: a second proposal from the site with the order's id gets the
              // first payment's answer (same payment) or is refused (another one), never paid again.
              payment.orderId === undefined
                ? undefined
                : JSON.stringify(['walletPay', proposer.origin ?? null, payment.orderId]),
              payment.orderId === undefined ? undefined : orderKeepMs,
            )
      const txid = result === undefined ? undefined : payment.txid(result)
      // Reported only once the chain shows it paid (a token's Transfer log), never on the broadcast alone.
      const unpaid = txid === undefined ? undefined : await payment.settled(txid).catch(String)
      if (txid !== undefined && unpaid !== undefined)
        report(new Error(`the walletPay transaction ${txid} is not reported as paid: ${unpaid}`))
      else if (txid !== undefined) responses.walletPay = [payment.result(txid)]
    }
  }
  return Object.keys(responses).length === 0 ? undefined : responses
}

/** The earlier of two Unix-second expiries, either of which may be missing (a proposal's is dapp input). */
function earliest(offer: number | undefined, proposal: unknown): number | undefined {
  if (typeof proposal !== 'number' || !Number.isFinite(proposal)) return offer
  return offer === undefined ? proposal : Math.min(offer, proposal)
}

/** How long the journal remembers an order this wallet paid (its `orderId`), however soon the offer expired. */
const orderKeepMs = 365 * 24 * 3600_000
