import type { FastCell } from './cells.js'
import { Address } from './tonCore.js'

/**
 * Reads a FastCell the way @ton/core's `Slice` does, for the fields a payload review needs: reading past the
 * end, a missing reference or an exotic cell throws as there. Anycast addresses (retired from the chain)
 * throw too, so a review shows such a payload as an opaque call.
 */
export class CellSlice {
  private offset = 0
  private refsOffset = 0

  constructor(private readonly cell: FastCell) {
    if (cell.exotic) throw new Error('Exotic cells cannot be parsed')
  }

  get remainingBits(): number {
    return this.cell.bits - this.offset
  }

  get remainingRefs(): number {
    return this.cell.refs.length - this.refsOffset
  }

  loadBit(): boolean {
    if (this.offset >= this.cell.bits) throw new RangeError('cell underflow')
    const at = this.offset++
    return ((this.cell.data[at >> 3]! >> (7 - (at & 7))) & 1) === 1
  }

  loadUintBig(bits: number): bigint {
    if (this.remainingBits < bits) throw new RangeError('cell underflow')
    let value = 0n
    for (let i = 0; i < bits; i++) value = (value << 1n) | (this.loadBit() ? 1n : 0n)
    return value
  }

  /** At most 32 bits. */
  loadUint(bits: number): number {
    if (this.remainingBits < bits) throw new RangeError('cell underflow')
    let value = 0
    for (let i = 0; i < bits; i++) value = value * 2 + (this.loadBit() ? 1 : 0)
    return value
  }

  loadCoins(): bigint {
    return this.loadUintBig(this.loadUint(4) * 8)
  }

  loadBytes(count: number): Uint8Array {
    if (this.remainingBits < count * 8) throw new RangeError('cell underflow')
    const out = new Uint8Array(count)
    if ((this.offset & 7) === 0) {
      out.set(this.cell.data.subarray(this.offset >> 3, (this.offset >> 3) + count))
      this.offset += count * 8
    } else {
      for (let i = 0; i < count; i++) out[i] = this.loadUint(8)
    }
    return out
  }

  /** MsgAddressInt addr_std; anything else throws. */
  loadAddress(): Address {
    if (this.loadUint(2) !== 2) throw new Error('Invalid address')
    if (this.loadBit()) throw new Error('anycast addresses are not read')
    const workChain = this.loadUint(8)
    return new Address(workChain > 127 ? workChain - 256 : workChain, Buffer.from(this.loadBytes(32)))
  }

  /** addr_none as null, else `loadAddress`. */
  loadMaybeAddress(): Address | null {
    if (this.remainingBits >= 2 && this.peekUint2() === 0) {
      this.offset += 2
      return null
    }
    return this.loadAddress()
  }

  loadRef(): FastCell {
    const ref = this.cell.refs[this.refsOffset]
    if (ref === undefined) throw new Error('No more references')
    this.refsOffset++
    return ref
  }

  /** A snake string (TEP-64 text): whole bytes here, the rest in at most one reference, as @ton/core reads it. */
  loadStringTail(): string {
    const parts: Uint8Array[] = []
    let slice: CellSlice = this
    for (;;) {
      if (slice.remainingBits % 8 !== 0) throw new Error(`Invalid string length: ${slice.remainingBits}`)
      if (slice.remainingRefs > 1) throw new Error(`invalid number of refs: ${slice.remainingRefs}`)
      parts.push(slice.loadBytes(slice.remainingBits / 8))
      if (slice.remainingRefs === 0) break
      slice = new CellSlice(slice.loadRef())
    }
    return Buffer.concat(parts).toString()
  }

  private peekUint2(): number {
    const value = this.loadUint(2)
    this.offset -= 2
    return value
  }
}
