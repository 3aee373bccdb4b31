import { activeSha256 } from '../crypto/sha256.js'
import { reflectedCrc32 } from './crc32.js'
import { type Address, BitString, Cell } from './tonCore.js'

/**
 * Ordinary TON cells for the signing hot path: bits in one buffer, the hash computed once with the active
 * SHA-256 backend (OpenSSL in Node) and the BoC written in one pass. @ton/core's `Cell` hashes every cell it
 * makes with a pure-JS SHA-256 over a hex string, which was half of a `ton_sendMessage`. Only ordinary cells
 * (level 0) are built and hashed here; `fromCoreCell` also carries a dapp's exotic cells, with @ton/core's
 * hashes, so that reviews read every payload one way, and `allOrdinary` tells the signing path to hand those
 * back to @ton/core. `test/ton/transfer.property.test.ts` proves hashes and BoCs byte-identical to @ton/core.
 */
export type FastCell = {
  /** The bits, left-aligned, then the completion tag (a 1 bit, then zeros) when not a whole number of bytes. */
  readonly data: Uint8Array
  readonly bits: number
  readonly refs: readonly FastCell[]
  readonly hash: Uint8Array
  readonly depth: number
  readonly exotic: boolean
  /** This cell and every cell under it are ordinary: the only trees this file hashes and serialises. */
  readonly allOrdinary: boolean
}

export class CellWriter {
  private readonly buffer = new Uint8Array(128)
  private length = 0
  private readonly refs: FastCell[] = []

  get availableBits(): number {
    return 1023 - this.length
  }

  get refCount(): number {
    return this.refs.length
  }

  bit(value: boolean | number): this {
    if (value) this.buffer[this.length >> 3]! |= 0x80 >> (this.length & 7)
    this.length++
    return this
  }

  /** `count` zero bits. */
  zeros(count: number): this {
    this.length += count
    return this
  }

  /** An unsigned integer of `bits` bits, at most 32 (a negative number is written in two's complement). */
  uint(value: number, bits: number): this {
    // Whole runs of bits per byte of the buffer instead of one bit at a time.
    while (bits > 0) {
      const free = 8 - (this.length & 7)
      const take = Math.min(free, bits)
      const chunk = (value >>> (bits - take)) & ((1 << take) - 1)
      this.buffer[this.length >> 3]! |= chunk << (free - take)
      this.length += take
      bits -= take
    }
    return this
  }

  /** The low `bits` bits of `value`, 32 at a time. */
  bigUint(value: bigint, bits: number): this {
    const head = bits % 32
    if (head > 0) this.uint(Number(BigInt.asUintN(head, value >> BigInt(bits - head))), head)
    for (let shift = bits - head - 32; shift >= 0; shift -= 32) {
      this.uint(Number(BigInt.asUintN(32, value >> BigInt(shift))), 32)
    }
    return this
  }

  /** `count` bits of `data`, from its first bit. */
  bitsFrom(data: Uint8Array, count: number): this {
    const shift = this.length & 7
    const whole = count >> 3
    let at = this.length >> 3
    if (shift === 0) {
      this.buffer.set(data.subarray(0, whole), at)
    } else {
      for (let i = 0; i < whole; i++) {
        const byte = data[i]!
        this.buffer[at]! |= byte >> shift
        this.buffer[++at] = (byte << (8 - shift)) & 0xff
      }
    }
    this.length += whole * 8
    for (let i = whole * 8; i < count; i++) this.bit((data[i >> 3]! >> (7 - (i & 7))) & 1)
    return this
  }

  bytes(data: Uint8Array): this {
    return this.bitsFrom(data, data.length * 8)
  }

  /** MsgAddressInt addr_std without anycast, or addr_none for null. */
  address(address: Address | null): this {
    if (address === null) return this.uint(0, 2)
    return this.uint(0b100, 3)
      .uint(address.workChain & 0xff, 8)
      .bytes(address.hash)
  }

  /** VarUInteger 16 (Grams). */
  coins(value: bigint): this {
    if (value === 0n) return this.uint(0, 4)
    const size = Math.ceil(value.toString(2).length / 8)
    return this.uint(size, 4).bigUint(value, size * 8)
  }

  ref(cell: FastCell): this {
    this.refs.push(cell)
    return this
  }

  /** The bits and refs of `cell`, appended. */
  slice(cell: FastCell): this {
    this.bitsFrom(cell.data, cell.bits)
    for (const ref of cell.refs) this.ref(ref)
    return this
  }

  end(): FastCell {
    if (this.length > 1023 || this.refs.length > 4) throw new RangeError('cell overflow')
    const bytes = Math.ceil(this.length / 8)
    const data = this.buffer.slice(0, bytes)
    if (this.length % 8 !== 0) data[bytes - 1]! |= 0x80 >> (this.length & 7)
    return makeCell(data, this.length, this.refs.slice())
  }
}

export const beginFastCell = () => new CellWriter()

/** An ordinary cell from its canonical data (see `FastCell.data`) and ordinary refs, hashed. */
export function makeCell(data: Uint8Array, bits: number, refs: readonly FastCell[]): FastCell {
  // A ref of a higher level would change this cell's hash in ways this function does not compute.
  if (!refs.every((ref) => ref.allOrdinary)) throw new TypeError('FastCells hash ordinary cells only')
  const repr = new Uint8Array(2 + data.length + refs.length * 34)
  repr[0] = refs.length
  repr[1] = Math.ceil(bits / 8) + Math.floor(bits / 8)
  repr.set(data, 2)
  let at = 2 + data.length
  let depth = 0
  for (const ref of refs) {
    repr[at++] = ref.depth >> 8
    repr[at++] = ref.depth & 0xff
    if (ref.depth + 1 > depth) depth = ref.depth + 1
  }
  for (const ref of refs) {
    repr.set(ref.hash, at)
    at += 32
  }
  return { data, bits, refs, hash: activeSha256().hash(repr), depth, exotic: false, allOrdinary: true }
}

/** An @ton/core cell as a FastCell with @ton/core's hashes (shared cells converted once). */
export function fromCoreCell(cell: Cell, converted = new Map<Cell, FastCell>()): FastCell {
  const known = converted.get(cell)
  if (known !== undefined) return known
  const refs = cell.refs.map((ref) => fromCoreCell(ref, converted))
  const bits = cell.bits.length
  const whole = bits - (bits % 8)
  const data = new Uint8Array(Math.ceil(bits / 8))
  if (whole > 0) data.set(cell.bits.subbuffer(0, whole)!, 0)
  for (let i = whole; i < bits; i++) if (cell.bits.at(i)) data[i >> 3]! |= 0x80 >> (i & 7)
  if (bits % 8 !== 0) data[data.length - 1]! |= 0x80 >> (bits & 7)
  const exotic = cell.isExotic
  const allOrdinary = !exotic && refs.every((ref) => ref.allOrdinary)
  const result = {
    data,
    bits,
    refs,
    hash: new Uint8Array(cell.hash()),
    depth: cell.depth(),
    exotic,
    allOrdinary,
  }
  converted.set(cell, result)
  return result
}

/** The @ton/core cell of a FastCell, for @ton/core's signing path (shared cells converted once). */
export function toCoreCell(cell: FastCell, converted = new Map<FastCell, Cell>()): Cell {
  const known = converted.get(cell)
  if (known !== undefined) return known
  const result = new Cell({
    bits: new BitString(
      Buffer.from(cell.data.buffer, cell.data.byteOffset, cell.data.byteLength),
      0,
      cell.bits,
    ),
    refs: cell.refs.map((ref) => toCoreCell(ref, converted)),
    exotic: cell.exotic,
  })
  converted.set(cell, result)
  return result
}

/** A Map key for a cell hash: 32 bytes as 16 UTF-16 code units (cheaper than hex for V8 to build and hash). */
const keyOf = (hash: Uint8Array) => {
  let key = ''
  for (let i = 0; i < 32; i += 2) key += String.fromCharCode((hash[i]! << 8) | hash[i + 1]!)
  return key
}

/** @ton/core's `topologicalSort` step for step (the BoC's cell order is part of its bytes). */
function topologicalOrder(root: FastCell): Array<{ cell: FastCell; refs: number[] }> {
  const all = new Map<string, { cell: FastCell; refs: string[] }>()
  const pendingPerm = new Set<string>()
  let pending = [root]
  while (pending.length > 0) {
    const cells = pending
    pending = []
    for (const cell of cells) {
      const key = keyOf(cell.hash)
      if (all.has(key)) continue
      pendingPerm.add(key)
      all.set(key, { cell, refs: cell.refs.map((ref) => keyOf(ref.hash)) })
      for (const ref of cell.refs) pending.push(ref)
    }
  }
  const sorted: string[] = []
  const visiting = new Set<string>()
  const visit = (key: string) => {
    if (!pendingPerm.has(key)) return
    if (visiting.has(key)) throw new Error('Not a DAG')
    visiting.add(key)
    const refs = all.get(key)!.refs
    for (let i = refs.length - 1; i >= 0; i--) visit(refs[i]!)
    sorted.push(key)
    visiting.delete(key)
    pendingPerm.delete(key)
  }
  while (pendingPerm.size > 0) visit(pendingPerm.values().next().value!)
  const index = new Map<string, number>()
  for (let i = 0; i < sorted.length; i++) index.set(sorted[sorted.length - i - 1]!, i)
  const result: Array<{ cell: FastCell; refs: number[] }> = []
  for (let i = sorted.length - 1; i >= 0; i--) {
    const entry = all.get(sorted[i]!)!
    result.push({ cell: entry.cell, refs: entry.refs.map((key) => index.get(key)!) })
  }
  return result
}

const bytesFor = (value: number) => Math.max(Math.ceil(value.toString(2).length / 8), 1)

/** The BoC @ton/core's `cell.toBoc()` writes (no index, CRC32-C), byte for byte; ordinary cells only. */
export function fastBoc(root: FastCell): Uint8Array {
  if (!root.allOrdinary) throw new TypeError('fastBoc writes ordinary cells only')
  const cells = topologicalOrder(root)
  const sizeBytes = bytesFor(cells.length)
  let cellsSize = 0
  for (const { cell } of cells) cellsSize += 2 + cell.data.length + cell.refs.length * sizeBytes
  const offsetBytes = bytesFor(cellsSize)
  const out = new Uint8Array(4 + 1 + 1 + 3 * sizeBytes + offsetBytes + sizeBytes + cellsSize + 4)
  let at = 0
  const write = (value: number, bytes: number) => {
    for (let i = bytes - 1; i >= 0; i--) out[at++] = Math.floor(value / 256 ** i) & 0xff
  }
  write(0xb5ee9c72, 4)
  out[at++] = 0b01000000 | sizeBytes // no index, CRC32-C, no cache bits, flags 0, size bytes
  out[at++] = offsetBytes
  write(cells.length, sizeBytes)
  write(1, sizeBytes) // roots
  write(0, sizeBytes) // absent
  write(cellsSize, offsetBytes)
  write(0, sizeBytes) // root index
  for (const { cell, refs } of cells) {
    out[at++] = cell.refs.length
    out[at++] = Math.ceil(cell.bits / 8) + Math.floor(cell.bits / 8)
    out.set(cell.data, at)
    at += cell.data.length
    for (const ref of refs) write(ref, sizeBytes)
  }
  const crc = crc32c(out.subarray(0, at))
  for (let i = 0; i < 4; i++) out[at++] = (crc >>> (8 * i)) & 0xff // little-endian
  return out
}

/** CRC-32C, the BoC checksum. */
export const crc32c = reflectedCrc32(0x82f63b78)
