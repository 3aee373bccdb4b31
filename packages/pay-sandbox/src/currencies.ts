/**
 * ISO 4217 currencies the sandbox accepts, with a fixed test conversion to the USDC-style token
 * (USDC per one whole unit of the currency, as a fraction). Test mode moves no funds; the rates only make
 * option amounts look plausible.
 */
export type Currency = {
  code: string
  name: string
  decimals: number
  usdcPerUnit: readonly [bigint, bigint]
}

const table: readonly Currency[] = [
  { code: 'USD', name: 'US Dollar', decimals: 2, usdcPerUnit: [1n, 1n] },
  { code: 'EUR', name: 'Euro', decimals: 2, usdcPerUnit: [108n, 100n] },
  { code: 'GBP', name: 'Pound Sterling', decimals: 2, usdcPerUnit: [127n, 100n] },
  { code: 'CHF', name: 'Swiss Franc', decimals: 2, usdcPerUnit: [113n, 100n] },
  { code: 'CAD', name: 'Canadian Dollar', decimals: 2, usdcPerUnit: [73n, 100n] },
  { code: 'AUD', name: 'Australian Dollar', decimals: 2, usdcPerUnit: [66n, 100n] },
  { code: 'JPY', name: 'Yen', decimals: 0, usdcPerUnit: [67n, 10_000n] },
  { code: 'KWD', name: 'Kuwaiti Dinar', decimals: 3, usdcPerUnit: [325n, 100n] },
]

const byCode = new Map(table.map((currency) => [currency.code, currency]))

export function currencyOf(unit: string): Currency | undefined {
  return unit.startsWith('iso4217/') ? byCode.get(unit.slice('iso4217/'.length)) : undefined
}

export const supportedCurrencyCodes = table.map((currency) => currency.code)

/** The fiat amount (minor units) converted to token minor units, rounded up so the merchant is never short. */
export function toTokenMinor(currency: Currency, fiatMinor: bigint, tokenDecimals: number): bigint {
  const [numerator, denominator] = currency.usdcPerUnit
  const scaled = fiatMinor * numerator * 10n ** BigInt(tokenDecimals)
  const divisor = denominator * 10n ** BigInt(currency.decimals)
  return (scaled + divisor - 1n) / divisor
}

/** Minor units as a number in the currency's standard unit (for list statistics). */
export function toStandardUnit(currency: Currency, minor: bigint): number {
  return Number(minor) / 10 ** currency.decimals
}

/**
 * A fiat amount in the currency's standard unit for people: `12.50 USD` for 1250 minor units, `1250 JPY` for a
 * currency without a minor unit, `1.250 KWD` for three decimals. Exact (bigint digits, never a float).
 */
export function formatFiat(amount: { unit: string; value: string }): string {
  const currency = currencyOf(amount.unit)
  if (currency === undefined || !/^[0-9]+$/.test(amount.value)) return `${amount.value} ${amount.unit}`
  const digits = BigInt(amount.value)
    .toString()
    .padStart(currency.decimals + 1, '0')
  const whole = digits.slice(0, digits.length - currency.decimals)
  const fraction = digits.slice(digits.length - currency.decimals)
  return `${currency.decimals === 0 ? whole : `${whole}.${fraction}`} ${currency.code}`
}
