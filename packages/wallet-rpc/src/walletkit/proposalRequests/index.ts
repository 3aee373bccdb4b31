import type { AuthTypes, EngineTypes, ProposalTypes, SessionTypes } from '@walletconnect/types'
import type { WalletRpcLike } from '../types.js'
import {
  type AuthenticationReview,
  type AuthenticationStep,
  type ProposerOrigin,
  planAuthentication,
} from './authentication.js'

export type { AuthenticationProof, AuthenticationReview, ProposerOrigin } from './authentication.js'

/** The requests a dapp put inside its session proposal (`proposal.requests`), as the connect review shows them. */
export type ProposalRequestsReview = {
  /** One-click sign-in (CAIP-122 `authentication`, TON Connect's ton_proof): one entry per request. */
  authentication: AuthenticationReview[]
}

/**
 * What `approveSession` answers: `true` approves the session with every sign-in the review offers, `false`
 * rejects it; an object approves the session with only the requests it sets to `true`.
 */
export type SessionApprovalAnswer = boolean | { authentication?: boolean }

export type ProposalRequestsPlan = {
  review: ProposalRequestsReview
  authentication: AuthenticationStep[]
}

/** The review and plan of `proposal.requests`, or undefined when the proposal carries none. Never throws. */
export function planProposalRequests(
  wallet: Pick<WalletRpcLike, 'supported'>,
  proposal: ProposalTypes.Struct,
  namespaces: SessionTypes.Namespaces,
  proposer: ProposerOrigin,
  now: number,
): ProposalRequestsPlan | undefined {
  const requests = (proposal as { requests?: unknown }).requests
  if (typeof requests !== 'object' || requests === null) return undefined
  const entries = Object.hasOwn(requests, 'authentication')
    ? (requests as { authentication?: unknown }).authentication
    : undefined
  const authentication = planAuthentication(entries, namespaces, wallet.supported(), proposer, now)
  return { review: { authentication: authentication.reviews }, authentication: authentication.steps }
}

/**
 * Runs what the user approved through the wallet's own method path (`wallet.handle`: validation, sign-in rules,
 * policy, the wallet's `approve` with `context` naming the proposal) and collects the answers approval sends.
 * A step the wallet refuses or fails is left out (reported); the session settles either way.
 */
export async function answerProposalRequests(
  wallet: Pick<WalletRpcLike, 'handle'>,
  plan: ProposalRequestsPlan,
  answer: SessionApprovalAnswer,
  proposalId: number,
  proposer: ProposerOrigin,
  report: (error: unknown) => void,
): Promise<EngineTypes.ApproveParams['proposalRequestsResponses'] | undefined> {
  const wanted = answer === true || (typeof answer === 'object' && answer.authentication === true)
  if (!wanted || plan.authentication.length === 0) return undefined
  const cacaos: AuthTypes.Cacao[] = []
  for (const step of plan.authentication) {
    const response = await wallet.handle({
      chainId: step.chainId,
      request: {
        id: `proposal-${proposalId}-authentication-${step.index}-${step.chainId}`,
        jsonrpc: '2.0',
        method: step.method,
        params: step.params,
      },
      ...(proposer.origin === undefined ? {} : { origin: proposer.origin }),
      ...(proposer.validation === undefined ? {} : { originValidation: proposer.validation }),
      context: {
        'session proposal': String(proposalId),
        'requested at connect': `sign-in ${step.index + 1} on ${step.chainId}`,
      },
    })
    if ('error' in response) {
      report(new Error(`connect-time sign-in on ${step.chainId} not signed: ${response.error.message}`))
      continue
    }
    const cacao = step.toCacao(response.result)
    if (cacao === undefined) report(new Error(`${step.method} answered no signature to build a CACAO from`))
    else cacaos.push(cacao)
  }
  return cacaos.length === 0 ? undefined : { authentication: cacaos }
}
