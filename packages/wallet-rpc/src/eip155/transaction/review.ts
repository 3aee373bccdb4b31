import type { Address, Hex } from 'viem'
import {
  item,
  type ReviewDraft,
  type ReviewItem,
  type ReviewWarning,
  unlimitedAllowance,
} from '../../core/review.js'
import { delegationWarnings } from '../eip7702/delegation.js'
import type { ChainConfig } from '../env.js'
import { erc20Abi } from '../erc20Abi.js'
import {
  defaultSimulationOptions,
  revertedWarning,
  reviewSimulation,
} from '../simulation/reviewSimulation.js'
import { tokenMetadata } from '../simulation/tokenMetadata.js'
import { decodeFunctionData, formatEther, formatGwei, formatUnits } from '../viemUtils.js'
import type { TransactionDraft } from './request.js'

/** What a review shows: a wallet-filled draft, or what a signed raw transaction decodes to (no estimate). */
type ReviewedTransaction = Pick<
  TransactionDraft,
  'from' | 'to' | 'value' | 'data' | 'gas' | 'fees' | 'nonce'
> & {
  gasEstimate?: bigint | undefined
}

export const isUnlimited = (amount: bigint) => amount >= unlimitedAllowance

const setApprovalForAllAbi = [
  {
    type: 'function',
    name: 'setApprovalForAll',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'operator', type: 'address' },
      { name: 'approved', type: 'bool' },
    ],
    outputs: [],
  },
] as const

/**
 * Other calls that grant an allowance: OpenZeppelin's `increaseAllowance`, a submitted ERC-2612 `permit`
 * (the signature's allowance takes effect), and Permit2's `approve(token, spender, uint160, uint48)`.
 */
const allowanceAbi = [
  {
    type: 'function',
    name: 'increaseAllowance',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'addedValue', type: 'uint256' },
    ],
    outputs: [{ type: 'bool' }],
  },
  {
    type: 'function',
    name: 'permit',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'token', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'amount', type: 'uint160' },
      { name: 'expiration', type: 'uint48' },
    ],
    outputs: [],
  },
] as const

const knownCallsAbi = [...erc20Abi, ...setApprovalForAllAbi, ...allowanceAbi]

/** Permit2 amounts are uint160: its maximum (2^160 - 1) is Permit2's "unlimited", as is anything near it. */
export const permit2MaxAmount = 2n ** 160n - 1n

/** A Permit2 expiration (uint48 seconds; 0 means the approving block's own time, Permit2's rule). */
function permit2Expiry(seconds: number): string {
  if (seconds === 0) return 'when this transaction is mined (Permit2: expiration 0)'
  // Past the last date JavaScript can show (year 275760): never, in effect.
  return seconds * 1000 > 8.64e15 ? `never (${seconds})` : new Date(seconds * 1000).toISOString()
}

/**
 * The review of a wallet-filled transaction; when it calls an ERC-20 and a provider is configured, the
 * token's symbol and decimals are read so the amount also shows in token units. With a provider the
 * transaction is also simulated: the account's balance changes and approvals, or why they are not shown.
 */
export async function reviewTransaction(title: string, chain: ChainConfig, draft: TransactionDraft) {
  const erc20 = draft.to !== undefined && decodeKnownCall(draft.data)?.erc20Amount !== undefined
  const { access, simulation } = chain
  const [token, nextNonce, simulated, delegation] = await Promise.all([
    // Shared (cached) with the simulation's reads, so a token is asked once.
    erc20 && access
      ? tokenMetadata(access, draft.to!, simulation ?? defaultSimulationOptions).then(knownMetadata)
      : undefined,
    // The account's next nonce, for the review: a failed read only leaves it out.
    access ? access.pendingNonce(draft.from).catch(() => undefined) : undefined,
    access && simulation ? reviewSimulation(access, draft, chain.nativeSymbol, simulation) : undefined,
    delegationWarnings(chain, draft.from),
  ])
  const review = transactionReview(title, chain, draft, token, nextNonce)
  review.warnings.push(...delegation)
  if (simulated !== undefined) {
    review.items.push(...simulated.items)
    review.warnings.push(...simulated.warnings)
  }
  // eth_call reverted while planning: dangerous even when the simulation could not run or saw otherwise.
  if (
    draft.callReverted !== undefined &&
    !review.warnings.some((warning) => warning.code === 'tx.simulation_reverted')
  )
    review.warnings.push(revertedWarning(draft.callReverted))
  return review
}

/** Items and warnings of a transaction review: to, value, max fee, decoded token calls, contract creation. */
export function transactionReview(
  title: string,
  chain: ChainConfig,
  tx: ReviewedTransaction,
  token?: TokenMetadata,
  nextNonce?: number,
): ReviewDraft {
  const symbol = chain.nativeSymbol
  const maxFeePerGas = tx.fees.type === 'eip1559' ? tx.fees.maxFeePerGas : tx.fees.gasPrice
  const items: ReviewItem[] = [
    item('From', tx.from),
    item('To', tx.to ?? 'New contract (contract creation)'),
    item('Value', `${formatEther(tx.value)} ${symbol}`),
    item('Max network fee', `${formatEther(tx.gas * maxFeePerGas)} ${symbol}`),
    item('Gas limit', tx.gas.toString()),
    tx.fees.type === 'eip1559'
      ? item(
          'Max fee per gas',
          `${formatGwei(tx.fees.maxFeePerGas)} gwei (priority ${formatGwei(tx.fees.maxPriorityFeePerGas)} gwei)`,
        )
      : item('Gas price', `${formatGwei(tx.fees.gasPrice)} gwei`),
  ]
  if (tx.nonce !== undefined) items.push(item('Nonce', String(tx.nonce)))
  else if (nextNonce !== undefined)
    items.push(item('Nonce', `${nextNonce} (the account's next; fixed when signed)`))
  const warnings: ReviewWarning[] = []
  if (tx.nonce !== undefined && nextNonce !== undefined && tx.nonce !== nextNonce) {
    warnings.push({
      code: 'tx.nonce_not_next',
      severity: 'caution',
      message:
        tx.nonce > nextNonce
          ? `Nonce ${tx.nonce} is ahead of the account's next (${nextNonce}): the transaction waits until the ones before it are sent.`
          : `Nonce ${tx.nonce} is already used or pending (the account's next is ${nextNonce}): this replaces a pending transaction or fails.`,
    })
  }
  if (tx.gasEstimate !== undefined && tx.gas < tx.gasEstimate) {
    warnings.push({
      code: 'tx.gas_below_estimate',
      severity: 'caution',
      message: `The gas limit ${tx.gas} set by the site is below the node's estimate ${tx.gasEstimate}; the transaction may fail and still cost its fee.`,
    })
  }
  if (tx.to === undefined) {
    warnings.push({
      code: 'tx.contract_creation',
      severity: 'caution',
      message: `Deploys a new contract (${(tx.data.length - 2) / 2} bytes of code); the code is not reviewed.`,
    })
    items.push(item('Code size', `${(tx.data.length - 2) / 2} bytes`))
  } else if (tx.data !== '0x') {
    const call = decodeKnownCall(tx.data)
    if (call === undefined)
      items.push(item('Data', tx.data.length > 138 ? `${tx.data.slice(0, 138)}…` : tx.data))
    else {
      items.push(...call.items(tx.to))
      if (call.erc20Amount && token) {
        const { label, amount } = call.erc20Amount
        items.push(
          item(`${label} (${token.symbol}, as the token reports)`, formatUnits(amount, token.decimals)),
        )
      }
      warnings.push(...call.warnings(tx.to))
    }
  }
  return { account: tx.from, title, items, warnings }
}

type DecodedCall = {
  items: (token: Address) => ReviewItem[]
  warnings: (token: Address) => ReviewWarning[]
  /** The ERC-20 amount the call moves or allows, shown in token units when the token's metadata is known. */
  erc20Amount?: { label: string; amount: bigint }
}

/** A token's symbol and decimals as its contract reports them (display only, never trusted for policy). */
type TokenMetadata = { symbol: string; decimals: number }

function knownMetadata(metadata: { symbol: string | undefined; decimals: number | undefined }) {
  const { symbol, decimals } = metadata
  return symbol === undefined || decimals === undefined ? undefined : { symbol, decimals }
}

/**
 * ERC-20 transfer/approve/transferFrom, the allowance calls (`increaseAllowance`, a submitted ERC-2612
 * `permit`, Permit2's `approve`) and setApprovalForAll, when the calldata decodes exactly.
 */
export function decodeKnownCall(data: Hex): DecodedCall | undefined {
  let decoded: { functionName: string; args: readonly unknown[] }
  try {
    decoded = decodeFunctionData({ abi: knownCallsAbi, data }) as typeof decoded
  } catch {
    return undefined
  }
  const { functionName, args } = decoded
  if (functionName === 'transfer' || functionName === 'transferFrom') {
    const [owner, recipient, amount] = (functionName === 'transfer' ? [undefined, ...args] : args) as [
      Address | undefined,
      Address,
      bigint,
    ]
    return {
      items: (token) => [
        item('Token call', `ERC-20 ${functionName}`),
        item('Token contract', token),
        ...(owner === undefined ? [] : [item('Owner', owner)]),
        item('Recipient', recipient),
        item('Amount (token base units)', amount.toString()),
      ],
      warnings: () => [],
      erc20Amount: { label: 'Amount', amount },
    }
  }
  if (functionName === 'approve' && args.length === 4) {
    const [token, spender, amount, expiration] = args as [Address, Address, bigint, number]
    const unlimited = amount >= permit2MaxAmount
    return {
      items: (permit2) => [
        item('Token call', 'Permit2 approve'),
        item('Permit2 contract', permit2),
        item('Token contract', token),
        item('Spender', spender),
        item('Allowance (token base units)', unlimited ? `unlimited (${amount})` : amount.toString()),
        item('Expires', permit2Expiry(expiration)),
      ],
      warnings: (permit2) =>
        unlimited
          ? [
              {
                code: 'erc20.unlimited_approval',
                severity: 'caution',
                message: `Grants ${spender} an unlimited allowance (Permit2's uint160 maximum) to spend your tokens of ${token} through ${permit2}.`,
              },
            ]
          : [],
    }
  }
  if (functionName === 'approve' || functionName === 'increaseAllowance' || functionName === 'permit') {
    const [owner, spender, amount] = (functionName === 'permit' ? args : [undefined, ...args]) as [
      Address | undefined,
      Address,
      bigint,
    ]
    const call =
      functionName === 'approve'
        ? 'ERC-20 approve'
        : functionName === 'permit'
          ? 'ERC-2612 permit (a signed allowance, submitted)'
          : 'ERC-20 increaseAllowance'
    return {
      items: (token) => [
        item('Token call', call),
        item('Token contract', token),
        ...(owner === undefined ? [] : [item('Owner', owner)]),
        item('Spender', spender),
        item(
          'Allowance (token base units)',
          isUnlimited(amount) ? `unlimited (${amount})` : amount.toString(),
        ),
      ],
      warnings: (token) =>
        isUnlimited(amount)
          ? [
              {
                code: 'erc20.unlimited_approval',
                severity: 'caution',
                message: `Grants ${spender} an unlimited allowance to spend ${owner === undefined ? 'your tokens' : `the tokens of ${owner}`} of ${token}.`,
              },
            ]
          : [],
      ...(isUnlimited(amount) ? {} : { erc20Amount: { label: 'Allowance', amount } }),
    }
  }
  if (functionName === 'setApprovalForAll') {
    const [operator, approved] = args as [Address, boolean]
    return {
      items: (token) => [
        item('Token call', 'setApprovalForAll'),
        item('Token contract', token),
        item('Operator', operator),
        item('Approved', String(approved)),
      ],
      warnings: (token) =>
        approved
          ? [
              {
                code: 'nft.approval_for_all',
                severity: 'caution',
                message: `Lets ${operator} move every token you hold in collection ${token}.`,
              },
            ]
          : [],
    }
  }
  return undefined
}
