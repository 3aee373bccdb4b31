import type { ExplorerLogoSize } from 'wallet-rpc/explorer'

/** Pixel width and height of each logo size. */
export const logoPixels: Readonly<Record<ExplorerLogoSize, number>> = { sm: 64, md: 128, lg: 256 }

// A logo is shown inside wallets: nothing in it may run, load or expand anything.
const forbidden: ReadonlyArray<[RegExp, string]> = [
  [/<script\b/i, 'a <script> element'],
  [/<foreignObject\b/i, 'a <foreignObject> element'],
  [/<!(DOCTYPE|ENTITY)\b/i, 'a DOCTYPE or ENTITY declaration'],
  [/\son[a-z]+\s*=/i, 'an event handler attribute'],
  [/javascript:/i, 'a javascript: URL'],
  [/href\s*=\s*["'](?!#)/i, 'a link to anything but a fragment of the logo itself'],
  [/url\(\s*["']?(?!#)/i, 'a url() to anything but a fragment of the logo itself'],
  [/@import\b/i, 'an @import'],
]

const maxLogoBytes = 64 * 1024

/**
 * The logo at `size`: the source SVG with its root element's `width` and `height` set to the size's pixels.
 * SVG because one vector source scales exactly to every size (no resampling, no image library with native
 * code); the `viewBox` the source must have is what makes the scaling exact. Throws a message naming what is
 * wrong with the source.
 */
export function renderLogo(source: string, size: ExplorerLogoSize): string {
  if (source.length > maxLogoBytes) throw new Error(`larger than ${maxLogoBytes} bytes`)
  for (const [pattern, what] of forbidden) {
    if (pattern.test(source)) throw new Error(`contains ${what}`)
  }
  const root = /<svg\b([^>]*)>/.exec(source)
  if (root === null) throw new Error('is not an SVG image (no <svg> element)')
  const attributes = root[1] ?? ''
  if (!/\sviewBox\s*=\s*["'][^"']+["']/.test(attributes))
    throw new Error('needs a viewBox on its <svg> element')
  if (!/\sxmlns\s*=\s*["']http:\/\/www\.w3\.org\/2000\/svg["']/.test(attributes)) {
    throw new Error('needs xmlns="http://www.w3.org/2000/svg" on its <svg> element')
  }
  const pixels = logoPixels[size]
  const sized = attributes.replace(/\s(width|height)\s*=\s*("[^"]*"|'[^']*')/g, '')
  return `${source.slice(0, root.index)}<svg${sized} width="${pixels}" height="${pixels}">${source.slice(root.index + root[0].length)}`
}
