import { crc32c, type FastCell, makeCell } from './cells.js'

/**
 * A dapp's BoC read straight into FastCells, hashed with the active SHA-256 backend: @ton/core's
 * `Cell.fromBoc` hashes every cell with a pure-JS SHA-256. Only the plain, canonical form every serializer
 * writes (magic b5ee9c72, one root, ordinary cells, canonical bit padding, no cache bits, nothing after the
 * last cell but the CRC) is read; for anything else the answer is undefined and the caller asks @ton/core,
 * so a BoC is accepted or refused exactly as before. Whatever this accepts, @ton/core accepts with the same
 * cells (`test/ton/readBoc.property.test.ts`).
 */
export function readBoc(boc: Uint8Array): FastCell | undefined {
  if (boc.length < 6 || boc[0] !== 0xb5 || boc[1] !== 0xee || boc[2] !== 0x9c || boc[3] !== 0x72) {
    return undefined
  }
  // has_idx:1 has_crc32c:1 has_cache_bits:1 flags:2 size:3, then off_bytes:8
  const flags = boc[4]!
  const hasIndex = (flags & 0x80) !== 0
  const hasCrc = (flags & 0x40) !== 0
  const sizeBytes = flags & 7
  const offsetBytes = boc[5]!
  if ((flags & 0x38) !== 0 || sizeBytes < 1 || sizeBytes > 4 || offsetBytes < 1 || offsetBytes > 4) {
    return undefined
  }
  let at = 6
  if (boc.length < at + 4 * sizeBytes + offsetBytes) return undefined
  const read = (bytes: number) => {
    let value = 0
    for (let i = 0; i < bytes; i++) value = value * 256 + boc[at++]!
    return value
  }
  const cellCount = read(sizeBytes)
  const roots = read(sizeBytes)
  const absent = read(sizeBytes)
  const cellsSize = read(offsetBytes)
  const root = read(sizeBytes)
  if (roots !== 1 || absent !== 0 || root >= cellCount) return undefined
  if (hasIndex) at += cellCount * offsetBytes
  const end = at + cellsSize
  if (end + (hasCrc ? 4 : 0) !== boc.length) return undefined
  if (hasCrc) {
    const crc = (boc[end]! | (boc[end + 1]! << 8) | (boc[end + 2]! << 16) | (boc[end + 3]! << 24)) >>> 0
    if (crc32c(boc.subarray(0, end)) !== crc) return undefined
  }

  const cells: Array<{ data: Uint8Array; bits: number; refs: number[] }> = []
  for (let index = 0; index < cellCount; index++) {
    if (at + 2 > end) return undefined
    const d1 = boc[at++]!
    const d2 = boc[at++]!
    // d1 = refs:3 exotic:1 with_hashes:1 level:3; only plain ordinary cells with at most 4 refs here.
    if (d1 > 4) return undefined
    const dataBytes = (d2 + 1) >> 1
    if (at + dataBytes + d1 * sizeBytes > end) return undefined
    let bits = dataBytes * 8
    if (d2 % 2 === 1) {
      // Odd d2: the last byte ends with the completion tag. A tag alone in its byte is not canonical.
      const last = boc[at + dataBytes - 1]!
      if (last === 0 || last === 0x80) return undefined
      bits -= 1 + Math.log2(last & -last)
    }
    const data = boc.slice(at, at + dataBytes)
    at += dataBytes
    const refs: number[] = []
    for (let i = 0; i < d1; i++) {
      const ref = read(sizeBytes)
      // @ton/core builds the cells last to first, so a reference must point further down the list.
      if (ref <= index || ref >= cellCount) return undefined
      refs.push(ref)
    }
    cells.push({ data, bits, refs })
  }
  if (at !== end) return undefined

  const built: FastCell[] = new Array(cellCount)
  for (let index = cellCount - 1; index >= 0; index--) {
    const { data, bits, refs } = cells[index]!
    const cell = makeCell(
      data,
      bits,
      refs.map((ref) => built[ref]!),
    )
    // Depths past what a 2-byte descriptor holds are left to @ton/core.
    if (cell.depth > 1023) return undefined
    built[index] = cell
  }
  return built[root]
}
