/**
 * Runestones, read as ord reads them (`ordinals/ord` 0.27 `crates/ordinals/src/runestone.rs` and its
 * `message.rs`, `tag.rs`, `flag.rs`, `varint.rs`, `edict.rs`; prose in `docs/src/runes/specification.md`), and
 * where a transaction sends the runes its inputs carry (`src/index/updater/rune_updater.rs`). ord is the
 * normative definition; every branch below mirrors one of its, and `test-vectors/bip122/runestones.json`
 * holds ord's own test cases.
 */

export type RuneId = { block: bigint; tx: number }
export type Edict = { id: RuneId; amount: bigint; output: number }

export type Terms = {
  amount: bigint | undefined
  cap: bigint | undefined
  height: [bigint | undefined, bigint | undefined]
  offset: [bigint | undefined, bigint | undefined]
}

export type Etching = {
  divisibility: number | undefined
  premine: bigint | undefined
  rune: bigint | undefined
  spacers: number | undefined
  symbol: string | undefined
  terms: Terms | undefined
  turbo: boolean
}

/** Why ord reads a runestone as a cenotaph (ord's `Flaw`, kebab-case as it serializes them). */
export type Flaw =
  | 'edict-output'
  | 'edict-rune-id'
  | 'invalid-script'
  | 'opcode'
  | 'supply-overflow'
  | 'trailing-integers'
  | 'truncated-field'
  | 'unrecognized-even-tag'
  | 'unrecognized-flag'
  | 'varint'

export type Runestone = {
  kind: 'runestone'
  /** The output holding it. */
  vout: number
  edicts: Edict[]
  etching: Etching | undefined
  mint: RuneId | undefined
  pointer: number | undefined
}

/** A malformed runestone: every rune the transaction's inputs carry is burned. */
export type Cenotaph = {
  kind: 'cenotaph'
  vout: number
  flaw: Flaw
  etching: bigint | undefined
  mint: RuneId | undefined
}

export type Artifact = Runestone | Cenotaph

const OP_RETURN = 0x6a
/** ord's `Runestone::MAGIC_NUMBER`: OP_PUSHNUM_13. */
const OP_13 = 0x5d
const u32Max = 0xffff_ffffn
const u64Max = (1n << 64n) - 1n
const u128Max = (1n << 128n) - 1n
const maxDivisibility = 38n
const maxSpacers = 0x07ff_ffffn

const Tag = {
  body: 0n,
  flags: 2n,
  rune: 4n,
  premine: 6n,
  cap: 8n,
  amount: 10n,
  heightStart: 12n,
  heightEnd: 14n,
  offsetStart: 16n,
  offsetEnd: 18n,
  mint: 20n,
  pointer: 22n,
  divisibility: 1n,
  spacers: 3n,
  symbol: 5n,
} as const

const Flag = { etching: 0n, terms: 1n, turbo: 2n } as const

/** A script's instructions as rust-bitcoin's `instructions()` yields them (pushes need not be minimal). */
type Instruction = { push: Uint8Array } | { op: number } | { error: true }

function* instructions(script: Uint8Array): Generator<Instruction> {
  let at = 0
  while (at < script.length) {
    const opcode = script[at++]!
    if (opcode > 0x4e) {
      yield { op: opcode }
      continue
    }
    let length = opcode
    const width = opcode === 0x4c ? 1 : opcode === 0x4d ? 2 : opcode === 0x4e ? 4 : 0
    if (width > 0) {
      if (at + width > script.length) {
        yield { error: true }
        return
      }
      length = 0
      for (let i = width - 1; i >= 0; i--) length = length * 256 + script[at + i]!
      at += width
    }
    if (at + length > script.length) {
      yield { error: true }
      return
    }
    yield { push: script.subarray(at, at + length) }
    at += length
  }
}

/** The first output starting `OP_RETURN OP_13`, and its payload (or the flaw that makes it a cenotaph). */
function payloadOf(
  outputs: readonly { script: Uint8Array }[],
): { vout: number; payload: Uint8Array } | { vout: number; flaw: Flaw } | undefined {
  for (const [vout, { script }] of outputs.entries()) {
    const reader = instructions(script)
    const first = reader.next().value
    if (!first || !('op' in first) || first.op !== OP_RETURN) continue
    // The protocol marker, ignoring errors: an OP_RETURN script may be invalid.
    const second = reader.next().value
    if (!second || !('op' in second) || second.op !== OP_13) continue
    const parts: Uint8Array[] = []
    for (const instruction of reader) {
      if ('error' in instruction) return { vout, flaw: 'invalid-script' }
      if ('op' in instruction) return { vout, flaw: 'opcode' }
      parts.push(instruction.push)
    }
    const payload = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
    let offset = 0
    for (const part of parts) {
      payload.set(part, offset)
      offset += part.length
    }
    return { vout, payload }
  }
  return undefined
}

/** LEB128 u128 integers (ord `varint::decode`); undefined for an overlong, overflowing or unterminated one. */
export function decodeIntegers(payload: Uint8Array): bigint[] | undefined {
  const integers: bigint[] = []
  let at = 0
  while (at < payload.length) {
    let n = 0n
    let i = 0
    for (;;) {
      if (at + i >= payload.length || i > 18) return undefined
      const byte = payload[at + i]!
      const value = byte & 0x7f
      if (i === 18 && (value & 0b0111_1100) !== 0) return undefined
      n |= BigInt(value) << BigInt(7 * i)
      i++
      if ((byte & 0x80) === 0) break
    }
    integers.push(n)
    at += i
  }
  return integers
}

/** LEB128 (ord `varint::encode_to_vec`): what a runestone's payload is made of. */
export function encodeInteger(n: bigint): number[] {
  if (n < 0n || n > u128Max) throw new RangeError('not a u128')
  const bytes: number[] = []
  let rest = n
  while (rest >> 7n > 0n) {
    bytes.push(Number(rest & 0x7fn) | 0x80)
    rest >>= 7n
  }
  bytes.push(Number(rest))
  return bytes
}

/** `RuneId::new`: block 0 with a non-zero tx names no rune. */
function runeId(block: bigint, tx: bigint): RuneId | undefined {
  if (block > u64Max || tx > u32Max || (block === 0n && tx > 0n)) return undefined
  return { block, tx: Number(tx) }
}

/** `Tag::take`: the first `count` values of `tag`, removed only when `read` accepts them. */
function take<T>(
  fields: Map<bigint, bigint[]>,
  tag: bigint,
  count: number,
  read: (values: bigint[]) => T | undefined,
): T | undefined {
  const field = fields.get(tag)
  if (!field || field.length < count) return undefined
  const value = read(field.slice(0, count))
  if (value === undefined) return undefined
  field.splice(0, count)
  if (field.length === 0) fields.delete(tag)
  return value
}

function takeFlag(flags: { value: bigint }, flag: bigint): boolean {
  const mask = 1n << flag
  const set = (flags.value & mask) !== 0n
  flags.value &= ~mask
  return set
}

const asU64 = ([value]: bigint[]) => (value! <= u64Max ? value : undefined)

/**
 * ord's `Runestone::decipher` over a transaction's outputs: undefined when no output starts `OP_RETURN OP_13`,
 * else the runestone or the cenotaph it makes.
 */
export function decipherRunestone(outputs: readonly { script: Uint8Array }[]): Artifact | undefined {
  const found = payloadOf(outputs)
  if (!found) return undefined
  const { vout } = found
  const cenotaph = (flaw: Flaw, etching?: bigint, mint?: RuneId): Cenotaph => ({
    kind: 'cenotaph',
    vout,
    flaw,
    etching,
    mint,
  })
  if ('flaw' in found) return cenotaph(found.flaw)
  const integers = decodeIntegers(found.payload)
  if (!integers) return cenotaph('varint')

  // ---- the untyped message (message.rs) ----
  let flaw: Flaw | undefined
  const edicts: Edict[] = []
  const fields = new Map<bigint, bigint[]>()
  for (let i = 0; i < integers.length; i += 2) {
    const tag = integers[i]!
    if (tag === Tag.body) {
      let id: RuneId = { block: 0n, tx: 0 }
      for (let at = i + 1; at < integers.length; at += 4) {
        if (at + 4 > integers.length) {
          flaw ??= 'trailing-integers'
          break
        }
        const [blockDelta, txDelta, amount, output] = integers.slice(at, at + 4) as [
          bigint,
          bigint,
          bigint,
          bigint,
        ]
        const next =
          blockDelta > u64Max
            ? undefined
            : runeId(id.block + blockDelta, blockDelta === 0n ? BigInt(id.tx) + txDelta : txDelta)
        if (!next) {
          flaw ??= 'edict-rune-id'
          break
        }
        // `output == outputs.length` is allowed: it splits the amount between every non-OP_RETURN output.
        if (output > u32Max || output > BigInt(outputs.length)) {
          flaw ??= 'edict-output'
          break
        }
        id = next
        edicts.push({ id: next, amount, output: Number(output) })
      }
      break
    }
    const value = integers[i + 1]
    if (value === undefined) {
      flaw ??= 'truncated-field'
      break
    }
    const field = fields.get(tag)
    if (field) field.push(value)
    else fields.set(tag, [value])
  }

  // ---- the runestone (runestone.rs decipher) ----
  const flags = { value: take(fields, Tag.flags, 1, ([value]) => value) ?? 0n }
  let etching: Etching | undefined
  if (takeFlag(flags, Flag.etching)) {
    etching = {
      divisibility: take(fields, Tag.divisibility, 1, ([value]) =>
        value! <= maxDivisibility ? Number(value) : undefined,
      ),
      premine: take(fields, Tag.premine, 1, ([value]) => value),
      rune: take(fields, Tag.rune, 1, ([value]) => value),
      spacers: take(fields, Tag.spacers, 1, ([value]) => (value! <= maxSpacers ? Number(value) : undefined)),
      symbol: take(fields, Tag.symbol, 1, ([value]) => unicodeScalar(value!)),
      terms: takeFlag(flags, Flag.terms)
        ? {
            cap: take(fields, Tag.cap, 1, ([value]) => value),
            height: [take(fields, Tag.heightStart, 1, asU64), take(fields, Tag.heightEnd, 1, asU64)],
            amount: take(fields, Tag.amount, 1, ([value]) => value),
            offset: [take(fields, Tag.offsetStart, 1, asU64), take(fields, Tag.offsetEnd, 1, asU64)],
          }
        : undefined,
      turbo: takeFlag(flags, Flag.turbo),
    }
  }
  const mint = take(fields, Tag.mint, 2, ([block, tx]) => runeId(block!, tx!))
  const pointer = take(fields, Tag.pointer, 1, ([value]) =>
    value! <= u32Max && value! < BigInt(outputs.length) ? Number(value) : undefined,
  )
  if (etching && supplyOverflows(etching)) flaw ??= 'supply-overflow'
  if (flags.value !== 0n) flaw ??= 'unrecognized-flag'
  if ([...fields.keys()].some((tag) => tag % 2n === 0n)) flaw ??= 'unrecognized-even-tag'
  if (flaw) return cenotaph(flaw, etching?.rune, mint)
  return { kind: 'runestone', vout, edicts, etching, mint, pointer }
}

/** `char::from_u32`: a Unicode scalar value (no surrogates, at most U+10FFFF). */
function unicodeScalar(value: bigint): string | undefined {
  if (value > 0x10ffffn || (value >= 0xd800n && value <= 0xdfffn)) return undefined
  return String.fromCodePoint(Number(value))
}

/** `Etching::supply`: premine + cap × amount must fit a u128. */
function supplyOverflows(etching: Etching): boolean {
  const minted = (etching.terms?.cap ?? 0n) * (etching.terms?.amount ?? 0n)
  return minted > u128Max || (etching.premine ?? 0n) + minted > u128Max
}

export const runeIdText = (id: RuneId): string => `${id.block}:${id.tx}`

/** Where runes go: per output index, rune id text → amount; and what is burned. */
export type RuneAllocation = {
  outputs: Map<number, Map<string, bigint>>
  burned: Map<string, bigint>
}

/**
 * Where the runes a transaction's inputs carry (`balances`, rune id text → amount) end up, by ord's rules for
 * transfers (rune_updater.rs `index_runes`): a cenotaph burns them all; edicts allocate in order (amount 0 =
 * all that is left; an output equal to the output count splits between the non-OP_RETURN outputs); what is
 * left goes to the pointer, else the first non-OP_RETURN output, else is burned; runes allocated to an
 * OP_RETURN output are burned. Minted and etched runes are not the inputs' and are left out.
 */
export function allocateRunes(
  artifact: Artifact | undefined,
  outputs: readonly { script: Uint8Array }[],
  balances: ReadonlyMap<string, bigint>,
): RuneAllocation {
  const unallocated = new Map(balances)
  const allocated = new Map<number, Map<string, bigint>>()
  const burned = new Map<string, bigint>()
  const add = (into: Map<string, bigint>, id: string, amount: bigint) =>
    into.set(id, (into.get(id) ?? 0n) + amount)
  const isOpReturn = (vout: number) => outputs[vout]!.script[0] === OP_RETURN
  const allocate = (id: string, amount: bigint, vout: number) => {
    if (amount <= 0n) return
    unallocated.set(id, unallocated.get(id)! - amount)
    let entry = allocated.get(vout)
    if (!entry) {
      entry = new Map()
      allocated.set(vout, entry)
    }
    add(entry, id, amount)
  }

  if (artifact?.kind === 'cenotaph') {
    for (const [id, amount] of unallocated) if (amount > 0n) add(burned, id, amount)
    return { outputs: allocated, burned }
  }
  if (artifact) {
    const destinations = outputs.flatMap((_, vout) => (isOpReturn(vout) ? [] : [vout]))
    for (const edict of artifact.edicts) {
      // 0:0 is the rune this transaction etches: never one an input carries.
      if (edict.id.block === 0n && edict.id.tx === 0) continue
      const id = runeIdText(edict.id)
      const balance = unallocated.get(id)
      if (balance === undefined) continue
      if (edict.output === outputs.length) {
        if (destinations.length === 0) continue
        if (edict.amount === 0n) {
          const share = balance / BigInt(destinations.length)
          const remainder = balance % BigInt(destinations.length)
          for (const [i, vout] of destinations.entries())
            allocate(id, BigInt(i) < remainder ? share + 1n : share, vout)
        } else {
          for (const vout of destinations) allocate(id, atMost(edict.amount, unallocated.get(id)!), vout)
        }
      } else {
        allocate(id, edict.amount === 0n ? balance : atMost(edict.amount, balance), edict.output)
      }
    }
  }
  const pointer = artifact?.pointer ?? outputs.findIndex((_, vout) => !isOpReturn(vout))
  for (const [id, amount] of unallocated) {
    if (amount <= 0n) continue
    if (pointer === -1) add(burned, id, amount)
    else allocate(id, amount, pointer)
  }
  // Runes allocated to an OP_RETURN output are burned.
  for (const [vout, entry] of [...allocated]) {
    if (!isOpReturn(vout)) continue
    for (const [id, amount] of entry) add(burned, id, amount)
    allocated.delete(vout)
  }
  return { outputs: allocated, burned }
}

const atMost = (amount: bigint, limit: bigint): bigint => (amount > limit ? limit : amount)
