import { createHash } from 'node:crypto'
import type { Reply } from '../http.js'

/**
 * HTML for the sandbox's pages (checkout portal, dashboard, data collection). Every interpolated value is
 * escaped unless it is already `Html` (made by `html` or `trustedHtml`), so a merchant name or a
 * `referenceId` can never become markup. Pages carry no inline script or style that is not hashed into their
 * Content-Security-Policy.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (character) => `&#${character.charCodeAt(0)};`)
}

type Interpolation = Html | string | number | bigint | boolean | null | undefined | readonly Interpolation[]

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`; nested `html` fragments and arrays of them pass. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let text = strings[0] ?? ''
  for (let index = 0; index < values.length; index++)
    text += render(values[index]) + (strings[index + 1] ?? '')
  return new Html(text)
}

/** Markup the caller built itself from constants (never from request or merchant data). */
export const trustedHtml = (text: string): Html => new Html(text)

/** An `href`/`src` value: only http(s) URLs (and same-site paths); anything else (javascript:, data:) is dropped. */
export function safeUrl(url: string | undefined, options: { httpsOnly?: boolean } = {}): string | undefined {
  if (url === undefined) return undefined
  if (url.startsWith('/') && !url.startsWith('//')) return url
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol === 'https:') return parsed.href
  if (parsed.protocol === 'http:' && options.httpsOnly !== true) return parsed.href
  return undefined
}

/** A refusal's issues, field by field (empty when there are none). */
export const issueList = (issues: ReadonlyArray<{ field: string; message: string }> | undefined): Html =>
  issues?.length
    ? html`<ul>${issues.map((issue) => html`<li><code>${issue.field}</code>: ${issue.message}</li>`)}</ul>`
    : html``

/** A merchant's icon, loaded only from https (plain http would be mixed content a network can swap); else none. */
export function merchantIcon(iconUrl: string | null | undefined): Html {
  const src = safeUrl(iconUrl ?? undefined, { httpsOnly: true })
  return src === undefined ? html`` : html`<img class="icon" src="${src}" alt="" width="48" height="48">`
}

export type PageOptions = {
  title: string
  body: Html
  /** Inline scripts; each one's sha256 goes into the CSP, so nothing else inline can run. */
  scripts?: readonly string[]
  /** A `<meta http-equiv="refresh">` interval, for pages that must update without JavaScript. */
  refreshSeconds?: number
  /** The same, inside `<noscript>`: only browsers without JavaScript reload (scripts update the page live). */
  noscriptRefreshSeconds?: number
  /** Extra CSP `connect-src` sources (the page's own origin is always allowed). */
  connectSources?: readonly string[]
  /** Extra style sheets after the shared one (constants only); each one's sha256 goes into the CSP. */
  styles?: readonly string[]
  /** Who may frame the page: nobody (default), or, for a page a wallet shows in its web view, anyone (`*`). */
  frameAncestors?: "'none'" | '*'
}

const styles = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.45}
body{margin:0 auto;max-width:48rem;padding:1rem}
header,main,footer{margin-block:1rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #8884;padding:.35rem;text-align:left}
button,input,select{font:inherit;padding:.35rem .6rem}
:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
.muted{opacity:.75}.error{color:#b91c1c}.ok{color:#15803d}
img.icon{width:48px;height:48px;border-radius:8px;vertical-align:middle}
@media (max-width:30rem){body{padding:.5rem}}
`

const sha256Base64 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64')
const styleHash = sha256Base64(styles)

const refreshMeta = (seconds: number): string =>
  `<meta http-equiv="refresh" content="${Math.max(1, Math.floor(seconds))}">`

/** A whole document: language, viewport for phones, the shared style, hashed inline scripts. */
export function page(options: PageOptions): { html: string; csp: string } {
  const scripts = options.scripts ?? []
  const extraStyles = options.styles ?? []
  const refresh =
    (options.refreshSeconds === undefined ? '' : refreshMeta(options.refreshSeconds)) +
    (options.noscriptRefreshSeconds === undefined
      ? ''
      : `<noscript>${refreshMeta(options.noscriptRefreshSeconds)}</noscript>`)
  const document = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refresh}<title>${escapeHtml(options.title)}</title><style>${styles}</style>${extraStyles.map((sheet) => `<style>${sheet}</style>`).join('')}</head>
<body>${options.body.text}${scripts.map((script) => `<script>${script}</script>`).join('')}</body></html>`
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((script) => `'sha256-${sha256Base64(script)}'`).join(' ') || "'none'"}`,
    `style-src ${[`'sha256-${styleHash}'`, ...extraStyles.map((sheet) => `'sha256-${sha256Base64(sheet)}'`)].join(' ')}`,
    "img-src 'self' https: data:",
    `connect-src 'self'${(options.connectSources ?? []).map((source) => ` ${source}`).join('')}`,
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${options.frameAncestors ?? "'none'"}`,
  ].join('; ')
  return { html: document, csp }
}

/** The reply for a page, with the headers every sandbox page carries. */
export function pageReply(
  status: number,
  options: PageOptions,
  headers: Record<string, string | string[]> = {},
): Reply {
  const { html: document, csp } = page(options)
  return {
    status,
    body: document,
    html: true,
    headers: {
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...(options.frameAncestors === '*' ? {} : { 'x-frame-options': 'DENY' }),
      ...headers,
    },
  }
}
