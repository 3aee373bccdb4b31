import { existsSync } from 'node:fs'
import puppeteer, { type Browser } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'

/**
 * Debian's chromium for a browser suite (CHROMIUM_PATH, else the usual paths). Missing, the suite is skipped with
 * a visible notice, except under REQUIRE_CHROMIUM=1 (CI), where a failing test says what is missing.
 */
export function findChromium(suite: string): string | undefined {
  const chromium =
    process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync)
  const required = process.env.REQUIRE_CHROMIUM === '1'
  if (!chromium && !required) {
    console.warn(`chromium not found (apt install chromium, or CHROMIUM_PATH): the ${suite} suite is SKIPPED`)
  }
  describe.runIf(!chromium && required)(`chromium required (${suite})`, () => {
    it('chromium is installed', () => {
      expect.fail('REQUIRE_CHROMIUM=1 but no chromium (apt install chromium, or set CHROMIUM_PATH)')
    })
  })
  return chromium
}

/** Headless, as root in a container (no sandbox), without a GPU or a large /dev/shm. */
export const launchChromium = (executablePath: string): Promise<Browser> =>
  puppeteer.launch({
    executablePath,
    headless: true,
    pipe: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
