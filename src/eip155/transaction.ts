import * as v from 'valibot'
import type { AccessList, Address, Hex, TransactionSerializable } from 'viem'
import { decodeFunctionData, formatEther, formatGwei, formatUnits, keccak256 } from 'viem/utils'
import { InvalidParamsError, PolicyRefusedError, ProviderError } from '../core/errors.js'
import type { RequestContext } from '../core/namespace.js'
import { item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../core/review.js'
import type { ChainAccess, EstimateRequest } from './chains.js'
import { accessOf, type ChainConfig, chainOf, type Eip155Env, nonceKey, ownedAddress } from './env.js'
import { erc20Abi } from './erc20Abi.js'
import type { Eip155Signer } from './keys.js'
import { addressSchema, bytes32Schema, dataSchema, maxUint64, maxUint256, quantitySchema } from './schemas.js'

/**
 * The transaction object of `eth_sendTransaction` / `eth_signTransaction` (execution-apis
 * `GenericTransaction`), strictly: unknown fields are refused rather than silently dropped, and blob
 * (type 3) and EIP-7702 (type 4) transactions are not accepted from dapps.
 */
export const transactionRequestSchema = v.strictObject(
  {
    from: addressSchema,
    to: v.optional(v.nullable(addressSchema)),
    gas: v.optional(quantitySchema(maxUint64, '2^64 - 1')),
    gasPrice: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    maxFeePerGas: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    maxPriorityFeePerGas: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    value: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    // EIP-2681 caps nonces at 2^64 - 2; viem needs a safe integer, which is lower still.
    nonce: v.optional(quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1')),
    chainId: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    type: v.optional(
      v.picklist(
        ['0x0', '0x1', '0x2'],
        'must be 0x0, 0x1 or 0x2 (blob and EIP-7702 transactions are not accepted from dapps)',
      ),
    ),
    data: v.optional(dataSchema),
    input: v.optional(dataSchema),
    accessList: v.optional(
      v.array(v.strictObject({ address: addressSchema, storageKeys: v.array(bytes32Schema) })),
    ),
  },
  'must be a transaction object with only the execution-apis fields (unknown fields are refused)',
)

export type TransactionRequest = v.InferOutput<typeof transactionRequestSchema>

export type Fees =
  | { type: 'legacy' | 'eip2930'; gasPrice: bigint }
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** A fully filled transaction except, when the dapp left it out, the nonce (reserved only after approval). */
export type TransactionDraft = {
  from: Address
  chainId: number
  to: Address | undefined
  value: bigint
  data: Hex
  gas: bigint
  fees: Fees
  accessList: AccessList | undefined
  nonce: number | undefined
  /** What the node estimated, when a provider was asked (a dapp-set gas below it is flagged). */
  gasEstimate: bigint | undefined
}

/** Gas limits are capped at this share of the block gas limit so one transaction never claims a whole block. */
const blockGasCapPercent = 95n

/**
 * `plan` of `eth_sendTransaction` and `eth_signTransaction`: check and fill the request, then review it.
 * A provider is required to broadcast, and to reserve a nonce the dapp left out.
 */
export async function planTransactionRequest(
  env: Eip155Env,
  context: RequestContext,
  request: TransactionRequest,
  method: { title: string; broadcasts: boolean },
): Promise<{ review: ReviewDraft; plan: TransactionDraft }> {
  const chain = chainOf(env, context)
  const draft = await planTransaction(env, chain, context, request)
  if (method.broadcasts || draft.nonce === undefined) accessOf(chain)
  return { review: await reviewTransaction(method.title, chain, draft), plan: draft }
}

/**
 * Everything `eth_sendTransaction` and `eth_signTransaction` check and fill before review: ownership of
 * `from`, field consistency, chainId, fees (EIP-1559 when the chain has a base fee), gas (estimate with a
 * margin, capped below the block gas limit). Chain reads fail as -32603 with the node's reason, so a
 * reverting or unaffordable transaction is refused before the user is asked.
 */
async function planTransaction(
  env: Eip155Env,
  chain: ChainConfig,
  context: RequestContext,
  request: TransactionRequest,
): Promise<TransactionDraft> {
  const data = dataOf(request)
  const feeFields = request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined
  if (request.gasPrice !== undefined && feeFields) {
    throw new InvalidParamsError('gasPrice cannot be combined with maxFeePerGas/maxPriorityFeePerGas', {
      path: '0.gasPrice',
    })
  }
  if ((request.type === '0x0' || request.type === '0x1') && feeFields) {
    throw new InvalidParamsError(`type ${request.type} takes gasPrice, not EIP-1559 fee fields`, {
      path: '0.type',
    })
  }
  if (request.type === '0x2' && request.gasPrice !== undefined) {
    throw new InvalidParamsError('type 0x2 takes maxFeePerGas/maxPriorityFeePerGas, not gasPrice', {
      path: '0.gasPrice',
    })
  }
  if (request.type === '0x0' && request.accessList !== undefined) {
    throw new InvalidParamsError('type 0x0 cannot carry an access list', { path: '0.accessList' })
  }
  if (
    request.maxFeePerGas !== undefined &&
    request.maxPriorityFeePerGas !== undefined &&
    request.maxPriorityFeePerGas > request.maxFeePerGas
  ) {
    throw new InvalidParamsError('maxPriorityFeePerGas exceeds maxFeePerGas', {
      path: '0.maxPriorityFeePerGas',
    })
  }
  if (request.chainId !== undefined && request.chainId !== BigInt(chain.chainId)) {
    throw new PolicyRefusedError(
      `transaction chainId ${request.chainId} differs from the request's chain ${context.chainId}`,
      { rule: 'chain_mismatch' },
    )
  }
  const to = request.to ?? undefined
  if (to === undefined && data === '0x') {
    throw new InvalidParamsError('a transaction without `to` deploys a contract and needs its code in data', {
      path: '0.to',
    })
  }
  const from = await ownedAddress(env, request.from)
  const value = request.value ?? 0n

  const needsChain = request.gas === undefined || !feesComplete(request)
  const access = needsChain ? accessOf(chain) : chain.access
  // One read of the latest block serves both the fee choice and the gas cap.
  const node = access === undefined ? undefined : { access, block: await access.latestBlock() }
  const fees = await fillFees(node, request)
  const { gas, gasEstimate } = await fillGas(env, node, request, {
    from,
    to,
    value,
    data,
    fees: estimateFees(fees),
  })
  if (node !== undefined) await assertAffordable(node.access, from, value + gas * maxFeeOf(fees))
  return {
    from,
    chainId: chain.chainId,
    to,
    value,
    data,
    gas,
    fees,
    accessList: request.accessList,
    nonce: request.nonce === undefined ? undefined : Number(request.nonce),
    gasEstimate,
  }
}

function dataOf(request: TransactionRequest): Hex {
  if (request.data !== undefined && request.input !== undefined && request.data !== request.input) {
    throw new InvalidParamsError('data and input are both given and differ', { path: '0.input' })
  }
  return request.input ?? request.data ?? '0x'
}

function feesComplete(request: TransactionRequest): boolean {
  return (
    request.gasPrice !== undefined ||
    (request.maxFeePerGas !== undefined && request.maxPriorityFeePerGas !== undefined)
  )
}

/** A chain provider and the latest block, read once per transaction. */
type ChainState = { access: ChainAccess; block: Awaited<ReturnType<ChainAccess['latestBlock']>> }

async function fillFees(node: ChainState | undefined, request: TransactionRequest): Promise<Fees> {
  const legacyType = request.accessList !== undefined || request.type === '0x1' ? 'eip2930' : 'legacy'
  if (request.gasPrice !== undefined) return { type: legacyType, gasPrice: request.gasPrice }
  if (request.maxFeePerGas !== undefined && request.maxPriorityFeePerGas !== undefined) {
    return {
      type: 'eip1559',
      maxFeePerGas: request.maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas,
    }
  }
  // Never default a missing fee to 0 (viem would): read the chain (planTransaction required a provider).
  const { access, block } = node!
  if (request.type === '0x0' || request.type === '0x1')
    return { type: legacyType, gasPrice: await access.gasPrice() }
  const { baseFeePerGas } = block
  if (baseFeePerGas === undefined) {
    if (
      request.type === '0x2' ||
      request.maxFeePerGas !== undefined ||
      request.maxPriorityFeePerGas !== undefined
    ) {
      throw new InvalidParamsError('this chain has no EIP-1559 base fee; send gasPrice instead', {
        path: '0.type',
      })
    }
    return { type: legacyType, gasPrice: await access.gasPrice() }
  }
  let maxPriorityFeePerGas = request.maxPriorityFeePerGas ?? (await access.maxPriorityFeePerGas())
  // Twice the base fee absorbs six full blocks of base-fee growth (12.5% each) before the tx stalls.
  const maxFeePerGas = request.maxFeePerGas ?? baseFeePerGas * 2n + maxPriorityFeePerGas
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas }
}

const maxFeeOf = (fees: Fees) => (fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice)

/**
 * The worst-case cost must be covered before the user is asked: nodes check only the value in eth_call
 * and some skip fees in eth_estimateGas, then refuse the broadcast after approval. Worded like geth.
 */
async function assertAffordable(access: ChainAccess, from: Address, cost: bigint): Promise<void> {
  const balance = await access.balance(from)
  if (balance < cost) {
    throw new ProviderError(
      `insufficient funds for gas * price + value: address ${from} have ${balance} want ${cost}`,
    )
  }
}

const estimateFees = (fees: Fees): EstimateRequest['fees'] =>
  fees.type === 'eip1559'
    ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { gasPrice: fees.gasPrice }

/**
 * The gas limit. With a provider the transaction is always simulated (eth_estimateGas), even when the dapp
 * set `gas`, so a revert or an unaffordable value is refused with the node's reason before the user is asked.
 */
async function fillGas(
  env: Eip155Env,
  node: ChainState | undefined,
  request: TransactionRequest,
  estimate: EstimateRequest,
): Promise<{ gas: bigint; gasEstimate: bigint | undefined }> {
  // Signing-only chain: planTransaction required every field.
  if (node === undefined) return { gas: request.gas!, gasEstimate: undefined }
  // eth_call first: its failure carries the clearest node reason (revert data, insufficient funds).
  await node.access.simulate(estimate)
  const estimated = await node.access.estimateGas(estimate)
  const blockGasLimit = node.block.gasLimit
  if (request.gas !== undefined) {
    if (request.gas > blockGasLimit) {
      throw new InvalidParamsError(`gas ${request.gas} exceeds the block gas limit ${blockGasLimit}`, {
        path: '0.gas',
      })
    }
    return { gas: request.gas, gasEstimate: estimated }
  }
  const padded = (estimated * BigInt(100 + env.gasMarginPercent)) / 100n
  const cap = (blockGasLimit * blockGasCapPercent) / 100n
  // The margin never pushes the limit past the cap, and the cap never cuts below what the node estimated.
  return { gas: padded < cap ? padded : estimated > cap ? estimated : cap, gasEstimate: estimated }
}

/** viem's serializable form of a draft with its nonce decided. */
function toSerializable(draft: TransactionDraft, nonce: number): TransactionSerializable {
  const common = {
    chainId: draft.chainId,
    nonce,
    gas: draft.gas,
    value: draft.value,
    data: draft.data,
    ...(draft.to === undefined ? {} : { to: draft.to }),
  }
  const { fees } = draft
  if (fees.type === 'eip1559') {
    return {
      ...common,
      type: 'eip1559',
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      ...(draft.accessList === undefined ? {} : { accessList: draft.accessList }),
    }
  }
  if (fees.type === 'eip2930') {
    return { ...common, type: 'eip2930', gasPrice: fees.gasPrice, accessList: draft.accessList ?? [] }
  }
  return { ...common, type: 'legacy', gasPrice: fees.gasPrice }
}

export async function signDraft(signer: Eip155Signer, draft: TransactionDraft, nonce: number): Promise<Hex> {
  return signer.signTransaction(toSerializable(draft, nonce))
}

/**
 * Runs `use` (sign, and maybe broadcast) with the draft's nonce. A nonce the dapp left out is reserved only
 * now, after approval, so a rejected request leaves no gap; it counts as used once `use` returns and is
 * given back when `use` throws.
 */
export async function withNonce<Result>(
  env: Eip155Env,
  context: RequestContext,
  draft: TransactionDraft,
  use: (nonce: number) => Promise<Result>,
): Promise<Result> {
  if (draft.nonce !== undefined) return use(draft.nonce)
  const access = accessOf(chainOf(env, context))
  const reservation = await env.nonces.reserve(nonceKey(draft.chainId, draft.from), () =>
    access.pendingNonce(draft.from),
  )
  try {
    const result = await use(reservation.nonce)
    reservation.settle(true)
    return result
  } catch (error) {
    reservation.settle(false)
    throw error
  }
}

/**
 * keccak256 of the raw transaction, after checking that the hash the provider reported for its broadcast
 * is that same hash: a provider that rewrote or substituted the transaction is caught.
 */
export function checkedHash(raw: Hex, returned: unknown): Hex {
  const expected = keccak256(raw)
  if (typeof returned !== 'string' || returned.toLowerCase() !== expected) {
    throw new ProviderError(`provider returned hash ${String(returned)}, expected ${expected}`)
  }
  return expected
}

// Review

/** What a review shows: a wallet-filled draft, or what a signed raw transaction decodes to (no estimate). */
type ReviewedTransaction = Pick<
  TransactionDraft,
  'from' | 'to' | 'value' | 'data' | 'gas' | 'fees' | 'nonce'
> & {
  gasEstimate?: bigint | undefined
}

/** Amounts at or above 2^128 exceed any real token supply: the approval is unlimited in effect. */
const unlimitedThreshold = 2n ** 128n

export const isUnlimited = (amount: bigint) => amount >= unlimitedThreshold

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

const knownCallsAbi = [...erc20Abi, ...setApprovalForAllAbi]

/**
 * The review of a wallet-filled transaction; when it calls an ERC-20 and a provider is configured, the
 * token's symbol and decimals are read so the amount also shows in token units.
 */
async function reviewTransaction(title: string, chain: ChainConfig, draft: TransactionDraft) {
  const erc20 = draft.to !== undefined && decodeKnownCall(draft.data)?.erc20Amount !== undefined
  const token = erc20 && chain.access ? await chain.access.tokenMetadata(draft.to!) : undefined
  return transactionReview(title, chain, draft, token)
}

/** Items and warnings of a transaction review: to, value, max fee, decoded token calls, contract creation. */
export function transactionReview(
  title: string,
  chain: ChainConfig,
  tx: ReviewedTransaction,
  token?: TokenMetadata,
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
  const warnings: ReviewWarning[] = []
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

/** ERC-20 transfer/approve/transferFrom and setApprovalForAll, when the calldata decodes exactly. */
function decodeKnownCall(data: Hex): DecodedCall | undefined {
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
  if (functionName === 'approve') {
    const [spender, amount] = args as [Address, bigint]
    return {
      items: (token) => [
        item('Token call', 'ERC-20 approve'),
        item('Token contract', token),
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
                message: `Grants ${spender} an unlimited allowance to spend your tokens of ${token}.`,
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
