import { fetchFailureReason, quoteLongIntegers, splitCredentials } from '../../core/http.js'
import { addressOf, decodeBase58, decodeBase64, encodeBase58, encodeBase64, readU64Le } from '../encoding.js'
import type {
  AccountInfo,
  SendOptions,
  SimulationResult,
  SolanaChainProvider,
  TokenBalance,
} from '../provider.js'

export type SolanaRpcOptions = {
  /** `fetch` to use (default the global one): a test double, a proxy, an authenticated client. */
  fetch?: typeof fetch
  /** Extra HTTP headers, e.g. an API key. */
  headers?: Record<string, string>
  /** Commitment for reads and simulation. Default `confirmed`. */
  commitment?: 'processed' | 'confirmed' | 'finalized'
}

const tokenPrograms = [
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
]
/** An address lookup table account: 56 bytes of metadata, then the addresses, 32 bytes each. */
const lookupTableMetaSize = 56

type RpcAccount = { lamports: number | bigint | string; owner: string; data: [string, string] } | null

/**
 * A Solana JSON-RPC provider over `fetch` (no @solana/web3.js, no Buffer): the reads the namespace's reviews
 * need, simulation without signature checks, and a single broadcast with `maxRetries: 0` (the wallet never
 * retries). Integers above 2^53 (lamports, token amounts) are read exactly.
 */
export function solanaRpc(url: string, options: SolanaRpcOptions = {}): SolanaChainProvider {
  // URL credentials go as a Basic header: fetch refuses a URL that holds them, in words that quote it.
  const { url: endpoint, authorization } = splitCredentials(url, 'solanaRpc')
  const doFetch = options.fetch ?? globalThis.fetch
  const commitment = options.commitment ?? 'confirmed'
  let nextId = 1

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    let response: Response
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization === undefined ? {} : { authorization }),
          ...options.headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      })
    } catch (error) {
      // Its own words may quote the URL (an API key in its path or query): never passed on.
      throw new Error(`${method}: ${fetchFailureReason(error)}`, { cause: error })
    }
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`)
    const body = JSON.parse(quoteLongIntegers(await response.text())) as {
      result?: T
      error?: { code: number; message: string }
    }
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message} (${body.error.code})`)
    return body.result as T
  }

  async function accounts(addresses: readonly string[]): Promise<RpcAccount[]> {
    if (addresses.length === 0) return []
    const result = await call<{ value: RpcAccount[] }>('getMultipleAccounts', [
      addresses,
      { encoding: 'base64', commitment },
    ])
    return result.value
  }

  return {
    async isBlockhashValid(blockhash) {
      const result = await call<{ value: boolean }>('isBlockhashValid', [blockhash, { commitment }])
      return result.value === true
    },

    async getBalances(addresses) {
      return (await accounts(addresses)).map((account) => (account === null ? 0n : BigInt(account.lamports)))
    },

    async getTokenBalances(owner) {
      const found: Array<{ account: string; mint: string; amount: bigint }> = []
      for (const programId of tokenPrograms) {
        const result = await call<{ value: Array<{ pubkey: string; account: NonNullable<RpcAccount> }> }>(
          'getTokenAccountsByOwner',
          [owner, { programId }, { encoding: 'base64', commitment }],
        )
        for (const entry of result.value) {
          const data = decodeBase64(entry.account.data[0], 'data')
          if (data.length < 72) continue
          found.push({
            account: entry.pubkey,
            mint: addressOf(data.subarray(0, 32)),
            amount: readU64Le(data, 64),
          })
        }
      }
      const mints = [...new Set(found.map((token) => token.mint))]
      const mintAccounts = await accounts(mints)
      const decimals = new Map(
        mints.map((mint, index) => {
          const account = mintAccounts[index]
          const data = account ? decodeBase64(account.data[0], 'data') : undefined
          return [mint, data?.[44] ?? 0]
        }),
      )
      return found.map(
        (token): TokenBalance => ({ ...token, owner, decimals: decimals.get(token.mint) ?? 0 }),
      )
    },

    async getLatestBlockhash() {
      const result = await call<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment }])
      return result.value.blockhash
    },

    async getAccountInfo(address): Promise<AccountInfo | undefined> {
      const [account] = await accounts([address])
      if (account === null || account === undefined) return undefined
      return {
        owner: account.owner,
        lamports: BigInt(account.lamports),
        data: decodeBase64(account.data[0], 'data'),
      }
    },

    async getNonce(address) {
      const [account] = await accounts([address])
      if (account === null || account === undefined) return undefined
      // Nonce account (80 bytes): version u32, state u32 (1 = initialized), authority, durable nonce, fee.
      const data = decodeBase64(account.data[0], 'data')
      if (data.length < 72 || account.owner !== '11111111111111111111111111111111' || data[4] !== 1)
        return undefined
      return encodeBase58(data.subarray(40, 72))
    },

    async getLookupTable(address) {
      const [account] = await accounts([address])
      if (account === null || account === undefined) throw new Error(`lookup table ${address} not found`)
      const data = decodeBase64(account.data[0], 'data')
      const addresses: string[] = []
      for (let offset = lookupTableMetaSize; offset + 32 <= data.length; offset += 32) {
        addresses.push(addressOf(data.subarray(offset, offset + 32)))
      }
      return addresses
    },

    async simulate(transaction, addresses): Promise<SimulationResult> {
      const result = await call<{
        value: {
          err: unknown
          logs: string[] | null
          accounts: RpcAccount[] | null
          unitsConsumed?: number | string
        }
      }>('simulateTransaction', [
        encodeBase64(transaction),
        {
          encoding: 'base64',
          commitment,
          sigVerify: false,
          replaceRecentBlockhash: false,
          accounts: { encoding: 'base64', addresses },
        },
      ])
      const { value } = result
      return {
        error: value.err === null || value.err === undefined ? undefined : JSON.stringify(value.err),
        logs: value.logs ?? [],
        accounts: (value.accounts ?? []).map((account) =>
          account === null
            ? null
            : { lamports: BigInt(account.lamports), data: decodeBase64(account.data[0], 'data') },
        ),
        unitsConsumed: value.unitsConsumed === undefined ? undefined : BigInt(value.unitsConsumed),
      }
    },

    async send(transaction, sendOptions: SendOptions) {
      const signature = await call<string>('sendTransaction', [
        encodeBase64(transaction),
        { encoding: 'base64', ...sendOptions, maxRetries: 0 },
      ])
      decodeBase58(signature, 'signature')
      return signature
    },

    async transactionKnown(signature) {
      const { value } = await call<{ value: unknown[] }>('getSignatureStatuses', [
        [signature],
        { searchTransactionHistory: true },
      ])
      return Array.isArray(value) && value[0] !== null && value[0] !== undefined
    },
  }
}
