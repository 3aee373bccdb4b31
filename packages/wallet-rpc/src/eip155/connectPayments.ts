import type { Address, Hex } from 'viem'
import type { ConnectPayments } from '../core/connectPayment.js'
import { ChainAccess, type Eip155ChainProvider } from './provider.js'
import { decimalsOf, symbolOf } from './simulation/tokenMetadata.js'

export type Eip155ConnectPaymentsOptions = {
  /** The providers the wallet's eip155 namespace uses, by CAIP-2 chain id (`httpProvider(url)`, a viem client). */
  providers: Partial<Record<string, Eip155ChainProvider>>
  /** How long to wait for the payment's receipt; past it the payment is not reported as paid. Default 60 000 ms. */
  receiptTimeoutMs?: number
  /** Between two receipt reads. Default 500 ms. */
  pollMs?: number
  /** Waits between receipt reads (tests pass their own). Default a real timer. */
  sleep?: (ms: number) => Promise<void>
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/
const selectors = { decimals: '0x313ce567', symbol: '0x95d89b41', balanceOf: '0x70a08231' } as const
/** keccak256("Transfer(address,address,uint256)"). */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const transferSelector = '0xa9059cbb'

const word = (value: bigint) => value.toString(16).padStart(64, '0')
const addressWord = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`

/**
 * Pays `walletPay` options on eip155 at connect (pass it to `attachWalletKit({ payments: [...] })`): the chain's
 * native coin (`slip44:60`) with a plain transfer, an ERC-20 (`erc20:<address>`) with `transfer(recipient,
 * amount)`, both through `eth_sendTransaction` (its review, simulation, policy and broadcast check). Before the
 * option is offered, the token is checked on the chain: code at the address, `decimals()`, `symbol()` and
 * `balanceOf()` answering as an ERC-20 does (a `transfer()` to an address without code succeeds and moves
 * nothing). After the broadcast, the payment is reported only once its receipt shows it: status success and,
 * for a token, a `Transfer(payer, recipient, amount)` log of that token.
 */
export function eip155ConnectPayments(options: Eip155ConnectPaymentsOptions): ConnectPayments {
  const receiptTimeoutMs = options.receiptTimeoutMs ?? 60_000
  const pollMs = options.pollMs ?? 500
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const accesses = new Map<string, ChainAccess>()
  const accessOf = (chainId: string): ChainAccess | undefined => {
    const known = accesses.get(chainId)
    if (known !== undefined) return known
    const provider = Object.hasOwn(options.providers, chainId) ? options.providers[chainId] : undefined
    const reference = chainId.slice('eip155:'.length)
    if (provider === undefined || !/^[1-9][0-9]{0,15}$/.test(reference)) return undefined
    const access = new ChainAccess(Number(reference), provider)
    accesses.set(chainId, access)
    return access
  }
  const tokenOf = (asset: string): Address | 'native' | string => {
    const [, namespace, reference] = /^[^/]+\/([-a-z0-9]+):(.+)$/.exec(asset) ?? []
    if (namespace === 'slip44' && reference === '60') return 'native'
    if (namespace !== 'erc20') return `asset type ${namespace ?? '?'} is not slip44:60 or erc20`
    return addressPattern.test(reference!) ? (reference as Address) : 'the token is not a 0x address'
  }
  return {
    namespace: 'eip155',
    method: 'eth_sendTransaction',
    async describe({ chainId, asset, recipient }) {
      const access = accessOf(chainId)
      if (access === undefined) return { unpayable: `no provider for ${chainId} to check the payment on` }
      const to = recipient.split(':')[2] ?? ''
      if (!addressPattern.test(to)) return { unpayable: 'the recipient is not a 0x address' }
      const token = tokenOf(asset)
      if (token === 'native') return { decimals: 18, symbol: undefined }
      if (!addressPattern.test(token)) return { unpayable: token }
      try {
        return await checkToken(access, token as Address, to)
      } catch (error) {
        return { unpayable: `reading the token failed: ${error instanceof Error ? error.message : 'error'}` }
      }
    },
    async request({ asset, recipient, amount, payer }) {
      const token = tokenOf(asset)
      const to = recipient.split(':')[2]!
      if (token === 'native') return [{ from: payer, to, value: `0x${amount.toString(16)}` }]
      if (!addressPattern.test(token)) throw new Error(token)
      return [{ from: payer, to: token, data: `${transferSelector}${word(BigInt(to))}${word(amount)}` }]
    },
    txid: (result) => (typeof result === 'string' ? result : undefined),
    async settled({ chainId, asset, recipient, amount, payer, txid }) {
      const access = accessOf(chainId)
      if (access === undefined) return `no provider for ${chainId} to read the receipt from`
      if (!/^0x[0-9a-fA-F]{64}$/.test(txid)) return 'the transaction id is not a 32-byte hash'
      const deadline = Date.now() + receiptTimeoutMs
      let receipt = await access.receipt(txid as Hex)
      while (receipt === undefined) {
        if (Date.now() >= deadline) return `no receipt within ${receiptTimeoutMs} ms`
        await sleep(pollMs)
        receipt = await access.receipt(txid as Hex)
      }
      if (receipt.status !== '0x1') return 'the transaction reverted'
      const token = tokenOf(asset)
      if (token === 'native') return undefined
      const to = recipient.split(':')[2]!
      const paid = receipt.logs.some((log) => isTransfer(log, token, payer, to, amount))
      return paid
        ? undefined
        : `its receipt holds no Transfer of ${amount} from ${payer} to ${to} by token ${token}`
    },
  }
}

/** The option's token as the chain answers for it, or why it is not an ERC-20 to pay with. */
async function checkToken(
  access: ChainAccess,
  token: Address,
  holder: string,
): Promise<{ decimals: number; symbol: string | undefined } | { unpayable: string }> {
  if ((await access.code(token)) === '0x') {
    return { unpayable: `${token} has no code: it is not a token contract (a transfer to it moves nothing)` }
  }
  const call = async (data: string): Promise<string | undefined> => {
    try {
      const answer = await access.verifiedRequest('eth_call', [{ to: token, data }, 'latest'])
      return typeof answer === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(answer)
        ? answer.toLowerCase()
        : undefined
    } catch {
      // A revert is the answer "not an ERC-20"; a node failure is told apart below by the code read above.
      return undefined
    }
  }
  const [decimalsAnswer, symbolAnswer, balanceAnswer] = await Promise.all([
    call(selectors.decimals),
    call(selectors.symbol),
    call(`${selectors.balanceOf}${addressWord(holder).slice(2)}`),
  ])
  const decimals = decimalsOf(decimalsAnswer)
  if (decimals === undefined || decimals > 36) {
    return { unpayable: `${token} does not answer decimals() as an ERC-20 does` }
  }
  if (balanceAnswer === undefined || balanceAnswer.length !== 66) {
    return { unpayable: `${token} does not answer balanceOf() as an ERC-20 does` }
  }
  const symbol = symbolOf(symbolAnswer)
  if (symbol === undefined) return { unpayable: `${token} does not answer symbol() with a plain symbol` }
  return { decimals, symbol }
}

/** A `Transfer(from, to, amount)` log of `token`, exactly (topics and data). */
function isTransfer(log: unknown, token: string, from: string, to: string, amount: bigint): boolean {
  if (typeof log !== 'object' || log === null) return false
  const { address, topics, data } = log as { address?: unknown; topics?: unknown; data?: unknown }
  return (
    typeof address === 'string' &&
    address.toLowerCase() === token.toLowerCase() &&
    Array.isArray(topics) &&
    topics.length === 3 &&
    String(topics[0]).toLowerCase() === transferTopic &&
    String(topics[1]).toLowerCase() === addressWord(from) &&
    String(topics[2]).toLowerCase() === addressWord(to) &&
    typeof data === 'string' &&
    data.toLowerCase() === `0x${word(amount)}`
  )
}
