/**
 * Ordinal theory's first-in-first-out sat flow: a transaction's input sats, in input order, fill its outputs
 * in output order; the sats left over are the fee (the miner's). So the sat at `offset` of input `i` is sat
 * number `Σ values of inputs before i + offset` of the transaction, and lands in the output whose range holds
 * that position, or in the fee past the last output.
 */

export type SatDestination = number | 'fee'

export type SatFlow = {
  /** Where the sat at `offset` (0-based, below the input's value) of input `input` goes. */
  locate(input: number, offset: bigint): SatDestination
  /** Every destination of the sats in `[from, to)` of input `input`, in order, each once. */
  spread(input: number, from: bigint, to: bigint): SatDestination[]
}

export function satFlow(inputValues: readonly bigint[], outputValues: readonly bigint[]): SatFlow {
  const inputStarts: bigint[] = []
  let position = 0n
  for (const value of inputValues) {
    inputStarts.push(position)
    position += value
  }
  // outputEnds[j] = the first position past output j.
  const outputEnds: bigint[] = []
  position = 0n
  for (const value of outputValues) {
    position += value
    outputEnds.push(position)
  }
  const totalOut = position

  /** The output holding transaction position `at` (binary search; zero-value outputs hold nothing). */
  const at = (where: bigint): SatDestination => {
    if (where >= totalOut) return 'fee'
    let low = 0
    let high = outputEnds.length - 1
    while (low < high) {
      const middle = (low + high) >> 1
      if (outputEnds[middle]! > where) high = middle
      else low = middle + 1
    }
    return low
  }

  const start = (input: number, offset: bigint): bigint => {
    const base = inputStarts[input]
    if (base === undefined || offset < 0n || offset >= inputValues[input]!)
      throw new RangeError('offset outside the input')
    return base + offset
  }

  return {
    locate: (input, offset) => at(start(input, offset)),
    spread(input, from, to) {
      if (to <= from) return []
      const first = start(input, from)
      const last = start(input, to - 1n)
      const found: SatDestination[] = []
      for (let where = first; where <= last; ) {
        const destination = at(where)
        found.push(destination)
        if (destination === 'fee') break
        where = outputEnds[destination]!
      }
      return found
    },
  }
}
