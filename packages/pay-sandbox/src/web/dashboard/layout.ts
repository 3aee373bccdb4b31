import type { Reply, RequestContext, Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import { type Html, html, issueList, pageReply } from '../html.js'
import { isSameOrigin } from '../sameOrigin.js'
import {
  clearCookie,
  type Flash,
  readSession,
  type Session,
  sameToken,
  sessionCookieName,
} from './session.js'

const dashboardStyles = `
body{max-width:84rem}
header.bar{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;border-bottom:1px solid #8886;padding-bottom:.5rem}
header.bar nav a{margin-right:1rem}header.bar nav a[aria-current=page]{font-weight:700}
.mode{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;font-weight:700;background:#fde68a;color:#713f12}
.mode.live{background:#b91c1c;color:#fff}
.flash{border:2px solid;border-radius:.4rem;padding:.5rem .75rem}.flash.ok{border-color:#15803d}.flash.error{border-color:#b91c1c}
form.inline{display:inline}form.stack label{display:block;margin:.3rem 0}
fieldset{border:1px solid #8886;border-radius:.4rem;margin:.75rem 0}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}.filters label{display:flex;flex-direction:column}
.console{display:flex;flex-wrap:wrap;gap:.5rem}
.stats{display:flex;flex-wrap:wrap;gap:1.5rem}
code,.mono{font-family:ui-monospace,monospace;word-break:break-all}
td ul{margin:0;padding-left:1rem}
.secret{font-size:1.05rem;padding:.2rem .4rem;border:1px dashed #8888}
`

/**
 * `no-referrer` (the pages' default) makes Chromium send `Origin: null` with the dashboard's own form posts, which
 * the Origin check must refuse; `same-origin` sends the real Origin to the dashboard and nothing to other sites.
 */
const dashboardHeaders = { 'referrer-policy': 'same-origin' }

/** Where a POST lands after it ran (POST-redirect-GET), with a message for that page. */
export type ActionResult = { redirect: string; flash?: Flash; headers?: Record<string, string | string[]> }

export const redirect = (location: string, headers: Record<string, string | string[]> = {}): Reply => ({
  status: 303,
  body: '',
  html: true,
  headers: { location, ...headers },
})

export type Section = 'payments' | 'webhooks' | 'merchants'

/** A message box: an action's outcome, or the API's refusal with its issues field by field. */
export function flashView(flash: Flash | undefined): Html | string {
  if (flash === undefined) return ''
  return html`<section class="flash ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">
<p>${flash.message}</p>
${issueList(flash.issues)}
${flash.secret === undefined ? '' : html`<p>Signing secret: <code class="secret" id="revealed-secret">${flash.secret}</code></p>`}
</section>`
}

/** A signed-in page: the bar (mode, sections, sign-out), the one-time message, the content. */
export function dashboardPage(
  session: Session,
  options: { title: string; section?: Section; body: Html; status?: number },
): Reply {
  const flash = session.flash
  delete session.flash
  const link = (section: Section, label: string) =>
    html`<a href="/dashboard/${section}"${options.section === section ? html` aria-current="page"` : ''}>${label}</a>`
  const body = html`<header class="bar">
<strong>wallet-rpc pay sandbox</strong>
${
  session.mode === 'live'
    ? html`<span class="mode live" title="Live mode: real payments">LIVE MODE</span>`
    : html`<span class="mode" title="Test mode: no funds move">TEST MODE</span>`
}
<nav aria-label="Dashboard">${link('payments', 'Payments')}${link('webhooks', 'Webhooks')}${link('merchants', 'Merchants')}</nav>
<form class="inline" method="post" action="/dashboard/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
</header>
<main>
<h1>${options.title}</h1>
${flashView(flash)}
${options.body}
</main>`
  return pageReply(
    options.status ?? 200,
    { title: `${options.title} · Dashboard`, body, styles: [dashboardStyles] },
    dashboardHeaders,
  )
}

export const csrfField = (session: Session): Html =>
  html`<input type="hidden" name="csrf" value="${session.csrfToken}">`

/** A page outside a session (sign-in, refusals). */
export function plainPage(
  status: number,
  title: string,
  body: Html,
  headers: Record<string, string | string[]> = {},
) {
  return pageReply(
    status,
    {
      title: `${title} · Dashboard`,
      body: html`<main><h1>${title}</h1>${body}</main>`,
      styles: [dashboardStyles],
    },
    { ...dashboardHeaders, ...headers },
  )
}

export function errorPage(error: PayHttpError): Reply {
  if (error.status === 404) {
    return plainPage(
      404,
      'Not found',
      html`<p>Nothing here for this account: ${error.message}.</p><p><a href="/dashboard/payments">Back to payments</a></p>`,
    )
  }
  return plainPage(
    error.status,
    'Request refused',
    html`<p><code>${error.code}</code>: ${error.message}</p><p><a href="/dashboard/payments">Back to payments</a></p>`,
  )
}

const signInRedirect = (expired: boolean, context: RequestContext): Reply =>
  redirect(`/dashboard/sign-in${expired ? '?expired=1' : ''}`, {
    'set-cookie': clearCookie(context, sessionCookieName),
  })

function guard(handle: () => Promise<Reply>): Promise<Reply> {
  return handle().catch((error: unknown) => {
    if (error instanceof PayHttpError) return errorPage(error)
    throw error
  })
}

/** A GET page that needs a session; without one (or after it expired) the browser goes to sign-in. */
export function sessionPage(
  path: string,
  render: (context: RequestContext, session: Session) => Reply | Promise<Reply>,
): Route {
  return {
    method: 'GET',
    path,
    auth: 'none',
    handle: (context) =>
      guard(async () => {
        const session = readSession(context)
        if (typeof session === 'string') return signInRedirect(session === 'expired', context)
        return render(context, session)
      }),
  }
}

export const crossSiteRefusal = (): Reply =>
  plainPage(
    403,
    'Request refused',
    html`<p>This form did not come from the dashboard's own page (cross-site request or missing CSRF token). Nothing was changed.</p><p><a href="/dashboard/payments">Back to the dashboard</a></p>`,
  )

/**
 * A state-changing form POST: from this origin, with a session and its CSRF token, or refused before anything
 * runs (403; an expired session goes to sign-in). The action's outcome is shown by the page it redirects to.
 */
export function sessionAction(
  path: string,
  run: (context: RequestContext, session: Session, form: URLSearchParams) => Promise<ActionResult>,
): Route {
  return {
    method: 'POST',
    path,
    auth: 'none',
    handle: (context) =>
      guard(async () => {
        if (!isSameOrigin(context)) return crossSiteRefusal()
        const session = readSession(context)
        if (typeof session === 'string') return signInRedirect(session === 'expired', context)
        const form = new URLSearchParams(context.rawBody)
        if (!sameToken(session.csrfToken, form.get('csrf'))) return crossSiteRefusal()
        const result = await run(context, session, form)
        if (result.flash !== undefined) session.flash = result.flash
        return redirect(result.redirect, result.headers ?? {})
      }),
  }
}

/** The API's refusal as the message of the page a POST returns to. */
export const refusal = (error: PayHttpError): Flash => ({
  kind: 'error',
  message: `Refused (${error.status} ${error.code}): ${error.message}`,
  ...(error.extra.issues === undefined ? {} : { issues: error.extra.issues }),
})

/** `1250` minor units with 2 decimals → `12.50`. */
export function formatMinor(value: string, decimals: number): string {
  if (!/^-?[0-9]+$/.test(value)) return value
  const negative = value.startsWith('-')
  const digits = (negative ? value.slice(1) : value).padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : ''
  return `${negative ? '-' : ''}${whole}${fraction}`
}

/** A `datetime-local` value (read as UTC) or an RFC 3339 time → RFC 3339 UTC; undefined when empty or malformed. */
export function utcFromInput(value: string | null): string | undefined {
  if (value === null || value.trim() === '') return undefined
  const text = value.trim()
  const withZone = /([Zz]|[+-][0-9]{2}:[0-9]{2})$/.test(text)
    ? text
    : `${text}${text.length === 16 ? ':00' : ''}Z`
  const time = Date.parse(withZone)
  return Number.isNaN(time) ? undefined : new Date(time).toISOString()
}

/** An instant as a `datetime-local` value in UTC (minutes). */
export const inputFromTime = (ms: number): string => new Date(ms).toISOString().slice(0, 16)
