import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  stringToHex,
  type TypedDataDefinition,
} from 'viem'
import { currencyOf, toTokenMinor } from './currencies.js'
import { newId, randomHex } from './ids.js'
import type { EvmRoute, ExpectedResult, Payment, TokenConfig, WalletRpcAction } from './model.js'

/** How an option's actions are laid out: the approval up front and the signature behind a build, or both behind one build. */
export type ActionLayout = 'approve-then-build' | 'single-build'

const usdc = (address: Address, networkName: string): TokenConfig => ({
  address,
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
  domainName: 'USD Coin',
  domainVersion: '2',
  networkName,
})

/** Circle's USDC contracts on the chains the research notes list for WalletConnect Pay. */
export const knownTokens: Readonly<Record<string, TokenConfig>> = {
  'eip155:1': usdc('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'Ethereum'),
  'eip155:8453': usdc('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'Base'),
  'eip155:10': usdc('0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', 'OP Mainnet'),
  'eip155:137': usdc('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'Polygon'),
  'eip155:42161': usdc('0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'Arbitrum One'),
}

const derivedAddress = (label: string): Address => getAddress(`0x${keccak256(stringToHex(label)).slice(-40)}`)

/** On any other EVM chain (anvil's 31337 included) the option names this made-up token contract. */
export const sandboxTokenAddress = derivedAddress('wallet-rpc pay sandbox: USDC-style token')
/** Uniswap's Permit2, at the same address on every chain: the approval grants it the allowance the signature draws on. */
export const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** Who the Permit2 signature lets move the amount (the service's settlement contract), to the payee it names. */
export const sandboxSpender = derivedAddress('wallet-rpc pay sandbox: spender')
/** Where the signature's witness sends the funds when the merchant registered no settlement for the asset. */
export const sandboxCollector = derivedAddress('wallet-rpc pay sandbox: collector')
/** The token a hostile gateway's `asset` fault signs for instead of the option's. */
export const hostileTokenAddress = derivedAddress('wallet-rpc pay sandbox: hostile token')

/** What an EVM route's actions sign: the route itself, or what the fault mode's hostile gateway puts instead. */
function signedView(route: EvmRoute) {
  const hostile = new Set(route.hostile?.actions ?? [])
  const chainNumber = Number(route.chainId.slice('eip155:'.length))
  const signChain = hostile.has('chain') ? (chainNumber === 1 ? 10 : 1) : chainNumber
  return {
    address: (hostile.has('account') ? route.hostile?.otherAddress : undefined) ?? route.address,
    token: hostile.has('asset') ? hostileTokenAddress : route.token.address,
    approval: hostile.has('approval') ? 2n ** 256n - 1n : route.tokenValue,
    // `spender`: the approval goes to the settlement contract itself, beside the Permit2 signature for the amount.
    approvedSpender: hostile.has('spender') ? route.spender : permit2Address,
    permitted: hostile.has('amount') ? route.tokenValue * 1000n : route.tokenValue,
    chainNumber,
    signChain,
  }
}

export function tokenFor(
  chainId: string,
  tokens: Readonly<Record<string, TokenConfig>>,
  anyEvmChain: boolean,
): TokenConfig | undefined {
  if (Object.hasOwn(tokens, chainId)) return tokens[chainId]
  if (Object.hasOwn(knownTokens, chainId)) return knownTokens[chainId]
  if (!anyEvmChain) return undefined
  return usdc(sandboxTokenAddress, `EVM chain ${chainId.slice('eip155:'.length)}`)
}

export const caip19Of = (chainId: string, token: Address): string => `${chainId}/erc20:${token}`

/** What a route for one EVM account is made from, in test and live mode alike. */
export type EvmRouteInput = {
  payment: Payment
  account: string
  chainId: string
  address: Address
  token: TokenConfig
  payee: Address
  now: number
  routeTtlMs: number
}

/** What every EVM route holds, in test and live mode alike: who pays whom how much of which token, until when. */
export function evmRouteBase(input: EvmRouteInput) {
  const { payment, chainId, token } = input
  const currency = currencyOf(payment.amount.unit)
  if (currency === undefined) throw new Error(`unsupported currency ${payment.amount.unit}`)
  return {
    kind: 'evm' as const,
    optionId: newId('opt_'),
    account: input.account,
    chainId,
    asset: caip19Of(chainId, token.address),
    display: token,
    address: input.address,
    token,
    tokenValue: toTokenMinor(currency, BigInt(payment.amount.value), token.decimals),
    payee: input.payee,
    spender: sandboxSpender,
    expiresAt: Math.min(payment.expiresAt, input.now + input.routeTtlMs),
  }
}

/**
 * A route for one EVM account: the approval of Permit2 for the amount first, then the Permit2 signature transfer of
 * that amount, which draws on it (the wallet counts the two as one amount, not two).
 */
export function createRoute(
  input: EvmRouteInput & { layout: ActionLayout; hostile?: EvmRoute['hostile'] },
): EvmRoute {
  const buildData = newId('build_', 32)
  const route: EvmRoute = {
    ...evmRouteBase(input),
    actions: [],
    buildData,
    forcedExpired: false,
    ...(input.hostile === undefined ? {} : { hostile: input.hostile }),
  }
  const build = { type: 'build' as const, data: { data: buildData } }
  route.actions = input.layout === 'single-build' ? [build] : [approvalAction(route), build]
  return route
}

/**
 * fetch: the walletRpc actions the build turns into (the signature, or approval and signature) and the checks
 * for every result confirm will receive, in execution order.
 */
export function resolveBuild(route: EvmRoute, layout: ActionLayout): EvmRoute['resolved'] & {} {
  const view = signedView(route)
  const typedData = permitWitnessTransferFrom(route)
  const signature: WalletRpcAction = {
    type: 'walletRpc',
    data: {
      chain_id: `eip155:${view.signChain}`,
      method: 'eth_signTypedData_v4',
      params: [view.address, JSON.stringify(typedDataJson(typedData))],
    },
  }
  const approval = approvalAction(route)
  const approvalCheck: ExpectedResult = {
    kind: 'transaction',
    chainId: view.chainNumber,
    from: view.address,
    to: view.token,
    data: approvalData(route),
  }
  const signatureCheck: ExpectedResult = { kind: 'typedData', from: view.address, typedData }
  // Whatever the layout, the wallet executes approval then signature; only what fetch returns differs.
  return {
    actions: layout === 'single-build' ? [approval, signature] : [signature],
    expected: [approvalCheck, signatureCheck],
  }
}

function approvalData(route: EvmRoute): Hex {
  const view = signedView(route)
  return encodeFunctionData({
    abi: erc20Abi,
    functionName: 'approve',
    args: [view.approvedSpender, view.approval],
  })
}

function approvalAction(route: EvmRoute): WalletRpcAction {
  const view = signedView(route)
  const transaction = {
    from: view.address,
    to: view.token,
    data: approvalData(route),
    value: '0x0',
  }
  return {
    type: 'walletRpc',
    data: { chain_id: route.chainId, method: 'eth_sendTransaction', params: [transaction] },
  }
}

const permit2Types = {
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Payment' },
  ],
  // The witness binds the payee into what is signed: the spender may send the amount only there.
  Payment: [{ name: 'to', type: 'address' }],
} as const

/**
 * Permit2's `PermitWitnessTransferFrom`: the settlement contract may move the amount once, to the payee, until the
 * route expires; a fresh random nonce (Permit2's nonces are unordered).
 */
function permitWitnessTransferFrom(route: EvmRoute): TypedDataDefinition {
  const view = signedView(route)
  return {
    domain: { name: 'Permit2', chainId: view.signChain, verifyingContract: permit2Address },
    types: permit2Types,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: view.token, amount: view.permitted },
      spender: route.spender,
      nonce: BigInt(randomHex(32)),
      deadline: BigInt(Math.floor(route.expiresAt / 1000)),
      witness: { to: route.payee },
    },
  } as TypedDataDefinition
}

/** The JSON a wallet receives for eth_signTypedData_v4: EIP712Domain listed, uint256 values as decimal strings. */
function typedDataJson(typedData: TypedDataDefinition): Record<string, unknown> {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ...typedData.types,
    },
    primaryType: typedData.primaryType,
    domain: typedData.domain,
    message: JSON.parse(
      JSON.stringify(typedData.message, (_key, value) =>
        typeof value === 'bigint' ? value.toString() : value,
      ),
    ),
  }
}
