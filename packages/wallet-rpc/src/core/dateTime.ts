// RFC 3339 date-times, strictly: the grammar of sign-in messages' issued-at, expiration and not-before.

const dateTimePattern =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/

/**
 * An RFC 3339 `date-time` as Unix milliseconds, or undefined when it is not one (calendar and clock ranges
 * checked; a leap second `:60` counts as the next second; fractions beyond milliseconds are truncated).
 */
export function parseDateTime(text: string): number | undefined {
  const match = dateTimePattern.exec(text)
  if (match === null) return undefined
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHour, offsetMinute] = match
  const y = Number(year)
  const mo = Number(month)
  const d = Number(day)
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return undefined
  let offset = 0
  if (zulu === undefined) {
    if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return undefined
    offset = (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute)) * 60_000
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'))
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(Number(hour), Number(minute), Number(second), millis)
  return date.getTime() - offset
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}
