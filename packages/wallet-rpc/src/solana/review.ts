import type { RequestContext } from '../core/namespace.js'
import { group, item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../core/review.js'
import { clusterName } from './chains.js'
import type { SolanaWallet } from './context.js'
import { addressOf, encodeBase58 } from './encoding.js'
import { decodeInstruction, formatLamports, type InstructionFacts } from './programs.js'
import type { PreparedTransaction } from './request.js'
import type { ChainFacts } from './simulation.js'
import { accountRefs, type SolanaTransaction } from './transaction.js'

/** Lamports every signature costs (the fixed base fee). */
export const lamportsPerSignature = 5000n
const defaultUnitsPerInstruction = 200_000
const maxComputeUnits = 1_400_000

/** Names an account for the review: base58, `(you)` for ours, or where a lookup table loads it from. */
function accountNamer(wallet: SolanaWallet, transaction: SolanaTransaction, resolved?: readonly string[]) {
  const { message } = transaction
  const staticNames = message.staticAddresses.map((address) => accountName(wallet, address))
  // Static keys only (the decoder refused any index past them): each name made once.
  if (message.addressTableLookups.length === 0) return (index: number): string => staticNames[index]!
  const refs = accountRefs(message)
  return (index: number): string => {
    const ref = refs[index]!
    if (ref instanceof Uint8Array) return staticNames[index]!
    const address = resolved?.[index]
    return address === undefined
      ? `lookup table ${addressOf(ref.table)} entry ${ref.index}`
      : accountName(wallet, address)
  }
}

function accountName(wallet: SolanaWallet, address: string): string {
  return wallet.signers.has(address) ? `${address} (you)` : address
}

export type TransactionReviewParts = { items: ReviewItem[]; warnings: ReviewWarning[] }

/**
 * What the user sees for one transaction: network, fee payer, fee (base and priority), each instruction
 * decoded, the signers and who has signed, lookup tables. `resolved` gives the addresses of all accounts,
 * lookup-table ones included, when a provider could read the tables.
 */
export function transactionReviewParts(
  context: RequestContext,
  wallet: SolanaWallet,
  prepared: PreparedTransaction,
  resolved?: readonly string[],
): TransactionReviewParts {
  const { transaction } = prepared
  const { message } = transaction
  const name = accountNamer(wallet, transaction, resolved)
  const warnings: ReviewWarning[] = []
  const instructionItems: ReviewItem[] = []
  const facts: InstructionFacts = {}
  let computeInstructions = 0
  message.instructions.forEach((instruction, index) => {
    const programId = message.staticAddresses[instruction.programIdIndex]!
    const decoded = decodeInstruction(
      { programId, accounts: instruction.accountIndexes.map(name), data: instruction.data },
      index,
    )
    if (programId === 'ComputeBudget111111111111111111111111111111') computeInstructions++
    // The runtime honours the nonce only when AdvanceNonceAccount is the first instruction.
    if (decoded.facts.advancesNonce && index === 0) facts.advancesNonce = true
    if (decoded.facts.computeUnitLimit !== undefined) facts.computeUnitLimit = decoded.facts.computeUnitLimit
    if (decoded.facts.microLamportsPerUnit !== undefined)
      facts.microLamportsPerUnit = decoded.facts.microLamportsPerUnit
    instructionItems.push(decoded.items)
    warnings.push(...decoded.warnings)
  })
  const baseFee = lamportsPerSignature * BigInt(message.header.numRequiredSignatures)
  const units =
    facts.computeUnitLimit ??
    Math.min(
      maxComputeUnits,
      defaultUnitsPerInstruction * (message.instructions.length - computeInstructions),
    )
  const priorityFee = ((facts.microLamportsPerUnit ?? 0n) * BigInt(units) + 999_999n) / 1_000_000n
  const feePayer = message.staticAddresses[0]!
  const signers: ReviewItem[] = []
  for (let slot = 0; slot < message.header.numRequiredSignatures; slot++) {
    const address = message.staticAddresses[slot]!
    const state = wallet.signers.has(address)
      ? 'you sign'
      : transaction.signatures[slot]!.some((byte) => byte !== 0)
        ? 'already signed'
        : 'signature missing'
    signers.push(item(address, state))
  }
  if (facts.advancesNonce) {
    warnings.push({
      code: 'solana.durable_nonce',
      severity: 'caution',
      message:
        'This transaction uses a durable nonce: it does not expire and can be submitted at any later time.',
    })
  }
  const items: ReviewItem[] = [
    item('Network', clusterName(context.chainId)),
    item(
      'Fee payer',
      wallet.signers.has(feePayer) ? `${feePayer} (you)` : `${feePayer} (someone else pays the fee)`,
    ),
    item('Network fee', formatLamports(baseFee)),
  ]
  // Pushed, not spread into the literal above: a spread sends V8's array literal down a slow generic path.
  if (priorityFee > 0n) items.push(item('Priority fee', formatLamports(priorityFee)))
  items.push(
    item(facts.advancesNonce ? 'Durable nonce' : 'Recent blockhash', encodeBase58(message.recentBlockhash)),
    item('Version', message.version === 'legacy' ? 'legacy' : 'v0'),
    group('Instructions', instructionItems),
    group('Signers', signers),
  )
  if (message.addressTableLookups.length > 0) {
    items.push(
      group(
        'Address lookup tables',
        message.addressTableLookups.map((lookup) =>
          item(
            addressOf(lookup.accountKey),
            `writable ${lookup.writableIndexes.join(', ') || '-'}; read-only ${lookup.readonlyIndexes.join(', ') || '-'}`,
          ),
        ),
      ),
    )
  }
  return { items, warnings }
}

/** The review of one transaction, with what a provider found (balance changes) when there is one. */
export function transactionReview(
  context: RequestContext,
  wallet: SolanaWallet,
  prepared: PreparedTransaction,
  title: string,
  chain: ChainFacts | undefined,
): ReviewDraft {
  const { items, warnings } = transactionReviewParts(context, wallet, prepared, chain?.resolved)
  if (chain !== undefined) {
    items.push(...chain.items)
    warnings.push(...chain.warnings)
  }
  return { account: prepared.account, title, items, warnings }
}
