import { ed25519 } from '@noble/curves/ed25519.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import {
  decodeBase64,
  decodeTransaction,
  encodeBase64,
  encodeShortVec,
  type SolanaTransaction,
} from 'wallet-rpc/solana'
import { associatedTokenAccount, associatedTokenProgram, tokenProgram } from './associatedToken.js'
import { currencyOf, toTokenMinor } from './currencies.js'
import { newId } from './ids.js'
import type { Payment, SolanaRoute, SolanaTokenOption } from './model.js'

/*
 * The sandbox's Solana payment option: a USDC-style SPL token on a Solana runtime the sandbox reaches over
 * JSON-RPC (the demo's and the tests' litesvm facade). Spec, "Gateway API (wallet side)", rule 4: the wallet
 * executes `solana_signTransaction`, returns the base64 signed transaction and does not broadcast it; the service
 * checks it and submits it itself. The sandbox builds the transaction, so the check is exact: the signed
 * transaction's message must be, byte for byte, the one it built (a `transferChecked` of the amount from the
 * payer's associated token account to the merchant's, after an idempotent creation of the merchant's), and the
 * payer's signature must verify over it. Then it submits once and reads the merchant's token balance back.
 */

const systemProgram = new Uint8Array(32)

/** Where the transfer goes when the merchant registered no settlement for the mint. */
export const sandboxSolanaCollector = base58.encode(
  sha256(utf8ToBytes('wallet-rpc pay sandbox: solana collector')),
)

/** The unsigned legacy transaction the payer signs: create the payee's token account if needed, then transferChecked. */
export function buildTokenTransfer(input: {
  payer: Uint8Array
  payee: Uint8Array
  mint: Uint8Array
  amount: bigint
  decimals: number
  recentBlockhash: Uint8Array
}): { wire: Uint8Array; message: Uint8Array } {
  const source = associatedTokenAccount(input.payer, input.mint)
  const destination = associatedTokenAccount(input.payee, input.mint)
  // Signer-writable, writable, then read-only accounts; the programs last.
  const keys = [
    input.payer,
    source,
    destination,
    input.payee,
    input.mint,
    systemProgram,
    tokenProgram,
    associatedTokenProgram,
  ]
  const index = (key: Uint8Array) => keys.indexOf(key)
  const createIdempotent = {
    program: index(associatedTokenProgram),
    accounts: [input.payer, destination, input.payee, input.mint, systemProgram, tokenProgram].map(index),
    data: Uint8Array.of(1),
  }
  const amount = new Uint8Array(8)
  new DataView(amount.buffer).setBigUint64(0, input.amount, true)
  const transferChecked = {
    program: index(tokenProgram),
    accounts: [source, input.mint, destination, input.payer].map(index),
    data: concatBytes(Uint8Array.of(12), amount, Uint8Array.of(input.decimals)),
  }
  const message = concatBytes(
    // 1 signature; 0 read-only signed; 5 read-only unsigned (payee, mint, the three programs).
    Uint8Array.of(1, 0, 5),
    encodeShortVec(keys.length),
    ...keys,
    input.recentBlockhash,
    encodeShortVec(2),
    ...[createIdempotent, transferChecked].flatMap((instruction) => [
      Uint8Array.of(instruction.program),
      encodeShortVec(instruction.accounts.length),
      Uint8Array.from(instruction.accounts),
      encodeShortVec(instruction.data.length),
      instruction.data,
    ]),
  )
  return { wire: concatBytes(encodeShortVec(1), new Uint8Array(64), message), message }
}

export type SolanaCheck = { ok: true; signature: string } | { ok: false; reason: string }

/**
 * Checks the base64 signed transaction against the message the sandbox built for the payer, submits it, and
 * judges the transaction itself on the runtime: confirmed without error (`getSignatureStatuses`), and its own
 * token balance changes (`getTransaction`'s pre/post token balances) credit the payee's token account with
 * exactly `amount`. Nothing else moving that account at the same time (another payment, a settlement) can blur it.
 */
export async function checkAndSubmit(
  option: SolanaTokenOption,
  expected: { message: Uint8Array; payer: Uint8Array; payee: Uint8Array; amount: bigint },
  result: string,
  waitMs = 30_000,
): Promise<SolanaCheck> {
  let transaction: SolanaTransaction
  try {
    transaction = decodeTransaction(decodeBase64(result, 'result'), 'result')
  } catch {
    return { ok: false, reason: 'result is not a base64 Solana transaction' }
  }
  if (!equalBytes(transaction.message.bytes, expected.message)) {
    return { ok: false, reason: 'the signed transaction is not the one the option asked for' }
  }
  const signatureBytes = transaction.signatures[0]!
  if (!ed25519.verify(signatureBytes, expected.message, expected.payer)) {
    return { ok: false, reason: 'the payer’s signature does not verify' }
  }
  const signature = base58.encode(signatureBytes)
  try {
    await runtimeRpc(option.rpcUrl, 'sendTransaction', [result, { encoding: 'base64' }])
  } catch (error) {
    // The runtime said no: nothing ran. No answer at all proves nothing (it may have taken it): the status decides.
    if (error instanceof RuntimeRpcError)
      return { ok: false, reason: `the runtime refused the transaction: ${error.message}` }
  }
  const meta = await executedMeta(option.rpcUrl, signature, waitMs)
  if (typeof meta === 'string') return { ok: false, reason: meta }
  const destination = base58.encode(associatedTokenAccount(expected.payee, base58.decode(option.mint)))
  const index = transaction.message.staticAddresses.indexOf(destination)
  const balanceOf = (balances: TokenBalance[] | null | undefined) =>
    BigInt(
      balances?.find((entry) => entry.accountIndex === index && entry.mint === option.mint)?.uiTokenAmount
        .amount ?? '0',
    )
  const gained = balanceOf(meta.postTokenBalances) - balanceOf(meta.preTokenBalances)
  if (gained !== expected.amount) {
    return {
      ok: false,
      reason: `transaction ${signature} credited the payee's token account ${destination} with ${gained}, not ${expected.amount}`,
    }
  }
  return { ok: true, signature }
}

type TokenBalance = { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }
type TransactionMeta = {
  err: unknown
  preTokenBalances?: TokenBalance[] | null
  postTokenBalances?: TokenBalance[] | null
}

/** The executed transaction's `meta` once it is confirmed without error, or why not (failed, never confirmed). */
async function executedMeta(
  rpcUrl: string,
  signature: string,
  waitMs: number,
): Promise<TransactionMeta | string> {
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      const statuses = (await runtimeRpc(rpcUrl, 'getSignatureStatuses', [
        [signature],
        { searchTransactionHistory: true },
      ])) as { value?: ({ err?: unknown; confirmationStatus?: string | null } | null)[] }
      const status = statuses.value?.[0]
      if (status?.err !== null && status?.err !== undefined) {
        return `transaction ${signature} failed on chain: ${JSON.stringify(status.err)}`
      }
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
        const executed = (await runtimeRpc(rpcUrl, 'getTransaction', [
          signature,
          { encoding: 'base64', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
        ])) as { meta?: TransactionMeta | null } | null
        if (executed?.meta !== undefined && executed.meta !== null) {
          if (executed.meta.err !== null && executed.meta.err !== undefined) {
            return `transaction ${signature} failed on chain: ${JSON.stringify(executed.meta.err)}`
          }
          return executed.meta
        }
      }
    } catch {
      // No answer: ask again until the deadline.
    }
    if (Date.now() + 100 > deadline)
      return `transaction ${signature} was not confirmed within ${waitMs / 1000} s`
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export async function latestBlockhash(rpcUrl: string): Promise<Uint8Array> {
  const answer = (await runtimeRpc(rpcUrl, 'getLatestBlockhash', [])) as { value?: { blockhash?: string } }
  if (typeof answer.value?.blockhash !== 'string') throw new Error('getLatestBlockhash answered no blockhash')
  return base58.decode(answer.value.blockhash)
}

/** The runtime answered with an error (it said no), as opposed to not answering at all. */
export class RuntimeRpcError extends Error {
  override name = 'RuntimeRpcError'
}

let nextId = 0
/** One JSON-RPC call to the runtime, bounded (15 s); an error answer throws with its message. */
export async function runtimeRpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
    signal: AbortSignal.timeout(15_000),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } }
  if (body.error !== undefined) throw new RuntimeRpcError(body.error.message ?? 'error')
  return body.result
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index])
}

/** The Solana option offered to `payer`: one build action, resolved by fetch into the transaction to sign. */
export function createSolanaRoute(input: {
  payment: Payment
  option: SolanaTokenOption
  payer: Uint8Array
  payee: Uint8Array
  now: number
  routeTtlMs: number
}): SolanaRoute {
  const { payment, option } = input
  const currency = currencyOf(payment.amount.unit)
  if (currency === undefined) throw new Error(`unsupported currency ${payment.amount.unit}`)
  const buildData = newId('build_', 32)
  return {
    kind: 'solana',
    optionId: newId('opt_'),
    account: `${option.chainId}:${base58.encode(input.payer)}`,
    chainId: option.chainId,
    asset: solanaAsset(option),
    display: option,
    tokenValue: toTokenMinor(currency, BigInt(payment.amount.value), option.decimals),
    option,
    payer: input.payer,
    payee: input.payee,
    expiresAt: Math.min(payment.expiresAt, input.now + input.routeTtlMs),
    actions: [{ type: 'build', data: { data: buildData } }],
    buildData,
    forcedExpired: false,
  }
}

/** CAIP-19 of the option's SPL token. */
export const solanaAsset = (option: SolanaTokenOption) => `${option.chainId}/token:${option.mint}`

/** fetch: the transaction, on the runtime's latest blockhash, as a `solana_signTransaction` action. */
export async function resolveSolanaBuild(route: SolanaRoute): Promise<SolanaRoute['resolved'] & {}> {
  const { option } = route
  const { wire, message } = buildTokenTransfer({
    payer: route.payer,
    payee: route.payee,
    mint: base58.decode(option.mint),
    amount: route.tokenValue,
    decimals: option.decimals,
    recentBlockhash: await latestBlockhash(option.rpcUrl),
  })
  return {
    actions: [
      {
        type: 'walletRpc',
        data: {
          chain_id: route.chainId,
          method: 'solana_signTransaction',
          params: [{ transaction: encodeBase64(wire), pubkey: base58.encode(route.payer) }],
        },
      },
    ],
    expected: [
      {
        kind: 'solanaTransaction',
        option,
        message,
        payer: route.payer,
        payee: route.payee,
        amount: route.tokenValue,
      },
    ],
  }
}
