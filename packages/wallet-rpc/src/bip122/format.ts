/** How bip122 reviews write amounts, fee rates and sighash types. */

export const sighashNames: Readonly<Record<number, string>> = {
  0: 'DEFAULT',
  1: 'ALL',
  2: 'NONE',
  3: 'SINGLE',
  129: 'ALL|ANYONECANPAY',
  130: 'NONE|ANYONECANPAY',
  131: 'SINGLE|ANYONECANPAY',
}

/** `0.00012345 BTC (12345 sat)`. */
export function formatSats(sats: bigint): string {
  const negative = sats < 0n
  const abs = negative ? -sats : sats
  const whole = abs / 100_000_000n
  const fraction = (abs % 100_000_000n).toString().padStart(8, '0')
  return `${negative ? '-' : ''}${whole}.${fraction} BTC (${sats} sat)`
}

export function formatFeeRate(fee: bigint, vsize: number): string {
  return `${(Number(fee) / vsize).toFixed(2)} sat/vB`
}
