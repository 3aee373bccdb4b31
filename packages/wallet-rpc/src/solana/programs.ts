import { group, item, type ReviewItem, type ReviewWarning } from '../core/review.js'
import { decodeUtf8Strict } from '../core/utf8.js'
import { addressOf, encodeBase64 } from './encoding.js'

export const systemProgram = '11111111111111111111111111111111'
export const tokenProgram = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const token2022Program = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
export const computeBudgetProgram = 'ComputeBudget111111111111111111111111111111'
export const associatedTokenProgram = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'
export const memoProgram = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'

/** What an instruction decoder sees: its accounts already named (an address, or where a lookup table loads it). */
export type InstructionView = {
  programId: string
  accounts: string[]
  data: Uint8Array
}

/** Facts the transaction review aggregates across instructions. */
export type InstructionFacts = {
  computeUnitLimit?: number
  microLamportsPerUnit?: bigint
  advancesNonce?: boolean
}

export type DecodedInstruction = { items: ReviewItem; warnings: ReviewWarning[]; facts: InstructionFacts }

/** Lamports as SOL, exact (9 decimals, trailing zeros dropped), with the raw amount beside it. */
export function formatLamports(lamports: bigint): string {
  return `${formatUnits(lamports, 9)} SOL (${lamports} lamports)`
}

export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0')
  const point = digits.length - decimals
  // The fraction without its trailing zeros.
  let end = digits.length
  while (end > point && digits.charCodeAt(end - 1) === 48) end--
  const whole = digits.slice(0, point)
  return `${negative ? '-' : ''}${end > point ? `${whole}.${digits.slice(point, end)}` : whole}`
}

class DataReader {
  offset = 0
  constructor(readonly data: Uint8Array) {}
  u8(): number {
    const value = this.data[this.offset]
    if (value === undefined) throw new MalformedData()
    this.offset += 1
    return value
  }
  u32(): number {
    const { data, offset } = this
    if (offset + 4 > data.length) throw new MalformedData()
    this.offset += 4
    // `>>> 0`: unsigned, also when the top bit is set.
    return (
      (data[offset]! | (data[offset + 1]! << 8) | (data[offset + 2]! << 16) | (data[offset + 3]! << 24)) >>> 0
    )
  }
  u64(): bigint {
    const low = this.u32()
    const high = this.u32()
    return high === 0 ? BigInt(low) : (BigInt(high) << 32n) | BigInt(low)
  }
  key(): string {
    if (this.offset + 32 > this.data.length) throw new MalformedData()
    const key = this.data.subarray(this.offset, this.offset + 32)
    this.offset += 32
    return addressOf(key)
  }
  end(): void {
    if (this.offset !== this.data.length) throw new MalformedData()
  }
}

class MalformedData extends Error {}

type Decoder = (
  view: InstructionView,
  data: DataReader,
  warnings: ReviewWarning[],
  facts: InstructionFacts,
) => ReviewItem[]

function account(view: InstructionView, position: number): string {
  const value = view.accounts[position]
  if (value === undefined) throw new MalformedData()
  return value
}

const system: Decoder = (view, data, warnings, facts) => {
  const kind = data.u32()
  switch (kind) {
    case 0: {
      const lamports = data.u64()
      const space = data.u64()
      const owner = data.key()
      data.end()
      return [
        item('Action', 'Create account'),
        item('Funded by', account(view, 0)),
        item('New account', account(view, 1)),
        item('Amount', formatLamports(lamports)),
        item('Space', `${space} bytes`),
        item('Owner program', owner),
      ]
    }
    case 1: {
      const owner = data.key()
      data.end()
      warnings.push({
        code: 'solana.system.assign',
        severity: 'caution',
        message: `Account ${account(view, 0)} is handed to program ${owner}, which then controls it.`,
      })
      return [
        item('Action', 'Assign account to a program'),
        item('Account', account(view, 0)),
        item('New owner', owner),
      ]
    }
    case 2: {
      const lamports = data.u64()
      data.end()
      return [
        item('Action', 'Transfer SOL'),
        item('From', account(view, 0)),
        item('To', account(view, 1)),
        item('Amount', formatLamports(lamports)),
      ]
    }
    case 4: {
      data.end()
      facts.advancesNonce = true
      return [item('Action', 'Advance durable nonce'), item('Nonce account', account(view, 0))]
    }
    default:
      return [item('Action', `System instruction ${kind}`)]
  }
}

const authorityTypes = ['mint tokens', 'freeze account', 'account owner', 'close account']

const token: Decoder = (view, data, warnings) => {
  const kind = data.u8()
  switch (kind) {
    case 3: {
      const amount = data.u64()
      data.end()
      return [
        item('Action', 'Transfer tokens'),
        item('From token account', account(view, 0)),
        item('To token account', account(view, 1)),
        item('Owner', account(view, 2)),
        item('Amount', `${amount} base units (decimals not stated)`),
      ]
    }
    case 12: {
      const amount = data.u64()
      const decimals = data.u8()
      data.end()
      return [
        item('Action', 'Transfer tokens'),
        item('From token account', account(view, 0)),
        item('Mint', account(view, 1)),
        item('To token account', account(view, 2)),
        item('Owner', account(view, 3)),
        item('Amount', `${formatUnits(amount, decimals)} (${amount} base units, ${decimals} decimals)`),
      ]
    }
    case 4:
    case 13: {
      const amount = data.u64()
      const decimals = kind === 13 ? data.u8() : undefined
      data.end()
      const delegate = account(view, kind === 13 ? 2 : 1)
      const shown =
        decimals === undefined
          ? `${amount} base units`
          : `${formatUnits(amount, decimals)} (${amount} base units)`
      warnings.push({
        code: 'solana.token.approve',
        severity: 'caution',
        message: `${delegate} may move up to ${shown} from token account ${account(view, 0)} without asking again.`,
      })
      return [
        item('Action', 'Approve a delegate'),
        item('Token account', account(view, 0)),
        ...(kind === 13 ? [item('Mint', account(view, 1))] : []),
        item('Delegate', delegate),
        item('Amount', shown),
      ]
    }
    case 6: {
      const type = data.u8()
      const tag = data.u8()
      const next = tag === 1 ? data.key() : tag === 0 ? 'none (removed for good)' : undefined
      if (next === undefined) throw new MalformedData()
      data.end()
      const what = authorityTypes[type] ?? `authority type ${type}`
      warnings.push({
        code: 'solana.token.set_authority',
        severity: 'caution',
        message: `The ${what} authority of ${account(view, 0)} changes to ${next}.`,
      })
      return [
        item('Action', 'Change token authority'),
        item('Account', account(view, 0)),
        item('Authority', what),
        item('New authority', next),
      ]
    }
    case 9: {
      data.end()
      return [
        item('Action', 'Close token account'),
        item('Token account', account(view, 0)),
        item('Rent goes to', account(view, 1)),
      ]
    }
    default:
      return [item('Action', `Token instruction ${kind}`)]
  }
}

const computeBudget: Decoder = (_view, data, _warnings, facts) => {
  const kind = data.u8()
  if (kind === 2) {
    facts.computeUnitLimit = data.u32()
    data.end()
    return [item('Action', 'Set compute unit limit'), item('Units', String(facts.computeUnitLimit))]
  }
  if (kind === 3) {
    facts.microLamportsPerUnit = data.u64()
    data.end()
    return [
      item('Action', 'Set priority fee'),
      item('Price', `${facts.microLamportsPerUnit} micro-lamports per unit`),
    ]
  }
  return [item('Action', `Compute budget instruction ${kind}`)]
}

const associatedToken: Decoder = (view, data) => {
  const kind = data.data.length === 0 ? 0 : data.u8()
  data.end()
  if (kind !== 0 && kind !== 1) return [item('Action', `Associated token instruction ${kind}`)]
  return [
    item('Action', kind === 1 ? 'Create token account (if missing)' : 'Create token account'),
    item('Paid by', account(view, 0)),
    item('Token account', account(view, 1)),
    item('Owner', account(view, 2)),
    item('Mint', account(view, 3)),
  ]
}

const memo: Decoder = (_view, data) => {
  const text = decodeUtf8Strict(data.data)
  if (text === undefined) throw new MalformedData()
  return [item('Action', 'Memo'), item('Text', text)]
}

const decoders = new Map<string, { name: string; decode: Decoder }>([
  [systemProgram, { name: 'System Program', decode: system }],
  [tokenProgram, { name: 'SPL Token', decode: token }],
  [token2022Program, { name: 'Token-2022', decode: token }],
  [computeBudgetProgram, { name: 'Compute Budget', decode: computeBudget }],
  [associatedTokenProgram, { name: 'Associated Token Account', decode: associatedToken }],
  [memoProgram, { name: 'Memo', decode: memo }],
])

/**
 * One instruction as review lines. Known programs are decoded; an unknown program, or instruction data a
 * known program would not accept, is listed as such with a caution: the user cannot see what it does.
 */
export function decodeInstruction(view: InstructionView, index: number): DecodedInstruction {
  const warnings: ReviewWarning[] = []
  const facts: InstructionFacts = {}
  const known = decoders.get(view.programId)
  const label = `Instruction ${index + 1}`
  if (known === undefined) {
    warnings.push({
      code: 'solana.unknown_program',
      severity: 'caution',
      message: `Instruction ${index + 1} calls program ${view.programId}, which the wallet cannot decode.`,
    })
    return {
      items: group(label, [
        item('Program', `unknown program ${view.programId}`),
        item('Accounts', view.accounts.join(', ') || 'none'),
        item('Data (base64)', encodeBase64(view.data)),
      ]),
      warnings,
      facts,
    }
  }
  try {
    const lines = known.decode(view, new DataReader(view.data), warnings, facts)
    return { items: group(label, [item('Program', known.name), ...lines]), warnings, facts }
  } catch (error) {
    if (!(error instanceof MalformedData)) throw error
    return {
      items: group(label, [item('Program', known.name), item('Data (base64)', encodeBase64(view.data))]),
      warnings: [
        {
          code: 'solana.malformed_instruction',
          severity: 'caution',
          message: `Instruction ${index + 1} has data or accounts ${known.name} does not accept.`,
        },
      ],
      facts: {},
    }
  }
}
