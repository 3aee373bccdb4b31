import type { AssetEffect } from '../core/expectation.js'
import { associatedTokenAccount } from './associatedToken.js'
import { decodeBase58, readU64Le } from './encoding.js'
import {
  associatedTokenProgram,
  computeBudgetProgram,
  memoProgram,
  systemProgram,
  token2022Program,
  tokenProgram,
} from './programs.js'
import type { PreparedTransaction } from './request.js'

/**
 * What a Solana transaction moves, decoded from its exact message (core `AssetEffect`, compared with a third
 * party's description of the payment): System `Transfer` and `CreateAccount` (SOL), SPL Token and Token-2022
 * `TransferChecked`, `Transfer` into an account the transaction creates as an associated token account (its mint
 * is known then), and `ApproveChecked`. The recipient of a token transfer is a token account; when the
 * transaction creates it as the associated token account of an owner (checked by deriving it), that owner is
 * named too. Compute budget, memo, associated-account creation (rent) and nonce advance move nothing paid.
 * Anything else (another program, another instruction, an account in an unread lookup table) is undefined:
 * the wallet cannot tell what the transaction moves.
 */
export function transactionEffects(
  chainId: string,
  prepared: PreparedTransaction,
  resolved?: readonly string[],
): AssetEffect[] | undefined {
  const { message } = prepared.transaction
  const names = resolved ?? message.staticAddresses
  const instructions = message.instructions.map((instruction) => ({
    program: names[instruction.programIdIndex],
    accounts: instruction.accountIndexes.map((index) => names[index]),
    data: instruction.data,
  }))
  // Token accounts this transaction creates as associated accounts: their owner and mint are then certain.
  const tokenAccounts = new Map<string, { owner: string; mint: string }>()
  for (const { program, accounts, data } of instructions) {
    if (program !== associatedTokenProgram || data.length > 1 || (data.length === 1 && data[0]! > 1)) continue
    const [, account, owner, mint, , tokenProgramId] = accounts
    if (account === undefined || owner === undefined || mint === undefined || tokenProgramId === undefined)
      continue
    if (isAssociated(account, owner, mint, tokenProgramId)) tokenAccounts.set(account, { owner, mint })
  }
  const effects: AssetEffect[] = []
  for (const instruction of instructions) {
    const decoded = instructionEffect(chainId, instruction, tokenAccounts)
    if (decoded === undefined) return undefined
    if (decoded !== 'none') effects.push(decoded)
  }
  return effects
}

type Instruction = { program: string | undefined; accounts: Array<string | undefined>; data: Uint8Array }

function instructionEffect(
  chainId: string,
  { program, accounts, data }: Instruction,
  tokenAccounts: ReadonlyMap<string, { owner: string; mint: string }>,
): AssetEffect | 'none' | undefined {
  if (program === computeBudgetProgram || program === memoProgram) return 'none'
  if (program === associatedTokenProgram) return data.length <= 1 && (data[0] ?? 0) <= 1 ? 'none' : undefined
  const at = (position: number) => accounts[position]
  if (program === systemProgram) {
    const kind = data.length >= 4 ? readU32(data) : undefined
    // Transfer: [2, lamports u64]; CreateAccount: [0, lamports u64, space u64, owner]; AdvanceNonceAccount: [4].
    if (kind === 4 && data.length === 4) return 'none'
    const create = kind === 0 && data.length === 52
    if (!(create || (kind === 2 && data.length === 12))) return undefined
    const from = at(0)
    const to = at(1)
    if (from === undefined || to === undefined) return undefined
    const base = { chainId, account: from, asset: 'native', recipient: to, kind: 'transfer' as const }
    return { ...base, amount: readU64Le(data, 4), form: create ? 'SOL to a new account' : 'SOL transfer' }
  }
  if (program !== tokenProgram && program !== token2022Program) return undefined
  const kind = data[0]
  if (kind === 12 && data.length === 10) {
    const [source, mint, destination, authority] = [at(0), at(1), at(2), at(3)]
    if (source === undefined || mint === undefined || destination === undefined || authority === undefined)
      return undefined
    const created = tokenAccounts.get(destination)
    return {
      chainId,
      account: authority,
      asset: mint,
      amount: readU64Le(data, 1),
      recipient: destination,
      ...(created?.mint === mint ? { recipientOwner: created.owner } : {}),
      kind: 'transfer',
      form: 'SPL transferChecked',
    }
  }
  if (kind === 3 && data.length === 9) {
    const [destination, authority] = [at(1), at(2)]
    // The mint is not in the instruction: known only for an account this transaction creates (the token
    // program refuses a transfer between accounts of two mints).
    const created = destination === undefined ? undefined : tokenAccounts.get(destination)
    if (created === undefined || authority === undefined) return undefined
    return {
      chainId,
      account: authority,
      asset: created.mint,
      amount: readU64Le(data, 1),
      recipient: destination!,
      recipientOwner: created.owner,
      kind: 'transfer',
      form: 'SPL transfer',
    }
  }
  if (kind === 13 && data.length === 10) {
    const [mint, delegate, owner] = [at(1), at(2), at(3)]
    if (mint === undefined || delegate === undefined || owner === undefined) return undefined
    return {
      chainId,
      account: owner,
      asset: mint,
      amount: readU64Le(data, 1),
      recipient: delegate,
      kind: 'allowance',
      form: 'SPL approveChecked',
    }
  }
  return undefined
}

const readU32 = (data: Uint8Array) => (data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24)) >>> 0

/** Whether `account` is the associated token account of `owner` for `mint` under `program`. */
function isAssociated(account: string, owner: string, mint: string, program: string): boolean {
  if (program !== tokenProgram && program !== token2022Program) return false
  try {
    const derived = associatedTokenAccount(
      decodeBase58(owner, 'owner'),
      decodeBase58(mint, 'mint'),
      decodeBase58(program, 'program'),
    )
    const key = decodeBase58(account, 'account')
    return key.length === derived.length && key.every((byte, index) => byte === derived[index])
  } catch {
    return false
  }
}
