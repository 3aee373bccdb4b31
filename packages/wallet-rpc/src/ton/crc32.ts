/**
 * A reflected CRC-32 with initial value and final XOR 0xffffffff, table-driven, the table built at the first
 * call: `0xedb88320` is CRC-32/ISO-HDLC (zlib's; TON Connect's signData schema hash), `0x82f63b78` CRC-32C
 * (the BoC checksum). Unsigned results.
 */
export function reflectedCrc32(polynomial: number): (data: Uint8Array) => number {
  let table: Uint32Array | undefined
  return (data) => {
    if (table === undefined) {
      table = new Uint32Array(256)
      for (let n = 0; n < 256; n++) {
        let c = n
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1
        table[n] = c >>> 0
      }
    }
    let crc = 0xffffffff
    for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
    return (crc ^ 0xffffffff) >>> 0
  }
}
