import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { base58, base64 } from '@scure/base'
import { type Address, address, type EncodedAccount, getTransactionDecoder, lamports } from '@solana/kit'
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'
import { decodeTransaction } from 'wallet-rpc/solana'
import { readBody } from './http.js'

/** A litesvm runtime behind the Solana JSON-RPC methods `solanaRpc` uses, on 127.0.0.1. */
export type SolanaLocalChain = {
  /** HTTP JSON-RPC endpoint, e.g. `http://127.0.0.1:41201`. */
  url: string
  /** The runtime itself, for test setup (airdrops, token accounts) and assertions. */
  svm: LiteSVM
  /** Every transaction the facade accepted through `sendTransaction`, as received. */
  sent: Uint8Array[]
  stop(): Promise<void>
}

type JsonRpcRequest = { id?: unknown; method?: unknown; params?: unknown }

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

const tokenProgramIds = new Set([
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
])

/**
 * Starts a litesvm runtime (System, SPL Token, Token-2022, ATA and the other default programs; signature and
 * blockhash checks on) and serves it over HTTP JSON-RPC: getLatestBlockhash, isBlockhashValid, getBalance,
 * getMultipleAccounts, getAccountInfo, getTokenAccountsByOwner, simulateTransaction, sendTransaction. What the
 * wallet's provider sends goes through the runtime's own checks, exactly as a validator would apply them.
 */
export async function startSolanaLocal(options: { svm?: LiteSVM } = {}): Promise<SolanaLocalChain> {
  const svm = options.svm ?? new LiteSVM()
  const sent: Uint8Array[] = []
  const decoder = getTransactionDecoder()
  /** What getTransaction answers for each executed transaction: its wire bytes and SPL token balances around it. */
  const executedTransactions = new Map<
    string,
    { bytes: Uint8Array; pre: TokenBalance[]; post: TokenBalance[] }
  >()
  /** The SPL token accounts among the transaction's static keys, with their balances now (RPC `TokenBalance`s). */
  const tokenBalances = (keys: readonly string[]): TokenBalance[] =>
    keys.flatMap((key, accountIndex) => {
      const account = svm.getAccount(address(key))
      if (!account.exists || account.data.length < 165 || !tokenProgramIds.has(account.programAddress))
        return []
      const data = new Uint8Array(account.data)
      const amount = new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true)
      return [
        {
          accountIndex,
          mint: base58.encode(data.subarray(0, 32)),
          owner: base58.encode(data.subarray(32, 64)),
          programId: account.programAddress,
          uiTokenAmount: { amount: amount.toString() },
        },
      ]
    })

  const encodeAccount = (account: EncodedAccount | null) =>
    account === null
      ? null
      : {
          lamports: Number(account.lamports),
          owner: account.programAddress,
          data: [base64.encode(new Uint8Array(account.data)), 'base64'],
          executable: account.executable,
          rentEpoch: 0,
          space: account.data.length,
        }
  const lookup = (text: unknown) => {
    if (typeof text !== 'string') throw new RpcFailure(-32602, 'Invalid param: expected a base58 address')
    let key: Address
    try {
      key = address(text)
    } catch {
      throw new RpcFailure(-32602, `Invalid param: ${text} is not an address`)
    }
    const account = svm.getAccount(key)
    return account.exists ? (account as EncodedAccount) : null
  }
  const context = () => ({ slot: Number(svm.getClock().slot), apiVersion: '2.2.0' })
  const transactionOf = (encoded: unknown, config: { encoding?: string } | undefined) => {
    if (typeof encoded !== 'string')
      throw new RpcFailure(-32602, 'Invalid param: transaction must be a string')
    const bytes = config?.encoding === 'base64' ? base64.decode(encoded) : base58.decode(encoded)
    return { bytes, transaction: decoder.decode(bytes) }
  }
  // The runtime's own entry points take wire bytes without @solana/kit's client-side "fully signed" check, so
  // a missing or forged signature reaches (and is refused by) the runtime itself.
  const runtime = (svm as unknown as { inner: RuntimeInner }).inner
  const execute = (bytes: Uint8Array, messageFirstByte: number) =>
    messageFirstByte & 0x80 ? runtime.sendVersionedTransaction(bytes) : runtime.sendLegacyTransaction(bytes)

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: Number(svm.getClock().slot) + 150 },
    }),
    isBlockhashValid: ([blockhash]) => ({ context: context(), value: blockhash === svm.latestBlockhash() }),
    // Whether the runtime executed each signature (and how): the settlement loop's proof that a transfer landed.
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures) || signatures.some((signature) => typeof signature !== 'string'))
        throw new RpcFailure(-32602, 'Invalid param: expected an array of signatures')
      return {
        context: context(),
        value: (signatures as string[]).map((signature) => {
          let outcome: ReturnType<LiteSVM['getTransaction']>
          try {
            outcome = svm.getTransaction(signature as Parameters<LiteSVM['getTransaction']>[0])
          } catch {
            return null
          }
          if (outcome === null) return null
          const err = outcome instanceof FailedTransactionMetadata ? errorValue(outcome) : null
          return { slot: context().slot, confirmations: null, err, confirmationStatus: 'finalized' }
        }),
      }
    },
    getBalance: ([key]) => ({ context: context(), value: Number(lookup(key)?.lamports ?? 0n) }),
    getAccountInfo: ([key]) => ({ context: context(), value: encodeAccount(lookup(key)) }),
    getMultipleAccounts: ([keys]) => {
      if (!Array.isArray(keys)) throw new RpcFailure(-32602, 'Invalid param: expected an array of addresses')
      return { context: context(), value: keys.map((key) => encodeAccount(lookup(key))) }
    },
    getTokenAccountsByOwner: ([owner, filter]) => {
      const programId = (filter as { programId?: string } | undefined)?.programId
      if (typeof owner !== 'string' || programId === undefined || !tokenProgramIds.has(programId)) {
        throw new RpcFailure(-32602, 'Invalid param: owner and a token programId are required')
      }
      const ownerBytes = base58.decode(owner)
      const accounts = svm
        .getProgramAccounts(address(programId))
        .filter(
          (account) => account.data.length >= 165 && sameBytes(account.data.subarray(32, 64), ownerBytes),
        )
      return {
        context: context(),
        value: accounts.map((account) => ({ pubkey: account.address, account: encodeAccount(account) })),
      }
    },
    simulateTransaction: ([encoded, rawConfig]) => {
      const config = rawConfig as
        | { encoding?: string; sigVerify?: boolean; accounts?: { addresses?: string[] } }
        | undefined
      const { transaction } = transactionOf(encoded, config)
      const sigverify = runtime.getSigverify()
      svm.withSigverify(config?.sigVerify ?? true)
      let outcome: ReturnType<LiteSVM['simulateTransaction']>
      try {
        outcome = svm.simulateTransaction(transaction)
      } finally {
        svm.withSigverify(sigverify)
      }
      if (outcome instanceof FailedTransactionMetadata) {
        const meta = outcome.meta()
        return {
          context: context(),
          value: {
            err: errorValue(outcome),
            logs: meta.logs(),
            accounts: null,
            unitsConsumed: Number(meta.computeUnitsConsumed()),
          },
        }
      }
      const after = new Map(outcome.postAccounts().map((account) => [account.address as string, account]))
      const requested = config?.accounts?.addresses ?? []
      return {
        context: context(),
        value: {
          err: null,
          logs: outcome.meta().logs(),
          accounts: requested.map((key) => encodeAccount(after.get(key) ?? lookup(key))),
          unitsConsumed: Number(outcome.meta().computeUnitsConsumed()),
        },
      }
    },
    // The executed transaction with its SPL token balances before and after (as a node's `meta` has them).
    getTransaction: ([signature]) => {
      if (typeof signature !== 'string') throw new RpcFailure(-32602, 'Invalid param: expected a signature')
      const executed = executedTransactions.get(signature)
      if (executed === undefined) return null
      return {
        slot: context().slot,
        transaction: [base64.encode(executed.bytes), 'base64'],
        meta: { err: null, preTokenBalances: executed.pre, postTokenBalances: executed.post },
      }
    },
    sendTransaction: ([encoded, rawConfig]) => {
      const { bytes, transaction } = transactionOf(encoded, rawConfig as { encoding?: string } | undefined)
      const keys = staticKeysOf(bytes)
      const pre = tokenBalances(keys)
      const outcome = execute(bytes, new Uint8Array(transaction.messageBytes)[0]!)
      if (outcome instanceof FailedTransactionMetadata || isFailed(outcome)) {
        const failed = outcome as FailedTransactionMetadata
        throw new RpcFailure(-32002, `Transaction simulation failed: ${failed.toString()}`, {
          err: errorValue(failed),
          logs: failed.meta().logs(),
        })
      }
      sent.push(bytes)
      const signature = base58.encode(outcome.signature())
      executedTransactions.set(signature, { bytes, pre, post: tokenBalances(keys) })
      return signature
    },
  }

  const server: Server = createServer(async (request, response) => {
    let id: unknown = null
    let reply: unknown
    try {
      const body = JSON.parse(await readBody(request)) as JsonRpcRequest
      id = body.id ?? null
      const method = typeof body.method === 'string' ? methods[body.method] : undefined
      if (method === undefined) throw new RpcFailure(-32601, `Method not found: ${String(body.method)}`)
      reply = { jsonrpc: '2.0', id, result: method(Array.isArray(body.params) ? body.params : []) }
    } catch (error) {
      const failure =
        error instanceof RpcFailure
          ? error
          : new RpcFailure(-32603, error instanceof Error ? error.message : 'error')
      reply = {
        jsonrpc: '2.0',
        id,
        error: {
          code: failure.code,
          message: failure.message,
          ...(failure.data ? { data: failure.data } : {}),
        },
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(reply))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    svm,
    sent,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

type TokenBalance = {
  accountIndex: number
  mint: string
  owner: string
  programId: string
  uiTokenAmount: { amount: string }
}

/** The message's static account keys (base58), in order: what `accountIndex` counts. */
function staticKeysOf(wire: Uint8Array): string[] {
  try {
    return decodeTransaction(wire, 'transaction').message.staticAddresses
  } catch {
    // Not one our decoder reads: the runtime still judges it; getTransaction then reports no token balances.
    return []
  }
}

type RuntimeOutcome = { signature(): Uint8Array } | FailedTransactionMetadata
type RuntimeInner = {
  getSigverify(): boolean
  sendLegacyTransaction(bytes: Uint8Array): RuntimeOutcome
  sendVersionedTransaction(bytes: Uint8Array): RuntimeOutcome
}

function isFailed(outcome: RuntimeOutcome): boolean {
  return typeof (outcome as { err?: unknown }).err === 'function'
}

function errorValue(failed: FailedTransactionMetadata): unknown {
  // Instruction errors are objects with a readable toString; the field-less ones a numeric enum.
  const error = failed.err() as unknown
  return typeof error === 'object' && error !== null ? String(error) : `TransactionError ${String(error)}`
}

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index])
}

export { lamports }
