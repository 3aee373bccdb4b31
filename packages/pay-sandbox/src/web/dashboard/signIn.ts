import { authenticate } from '../../auth.js'
import type { RequestContext, Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import { html } from '../html.js'
import { isSameOrigin } from '../sameOrigin.js'
import { crossSiteRefusal, plainPage, redirect, sessionAction } from './layout.js'
import {
  clearCookie,
  cookies,
  createSession,
  type DashboardMode,
  endSession,
  modeContext,
  randomToken,
  readSession,
  sameToken,
  sessionCookieName,
  sessionLifetimeMs,
  setCookie,
  signInCookieName,
} from './session.js'

/** The sign-in token lives as long as someone may take to paste a key. */
const signInTokenMs = 30 * 60 * 1000

function signInForm(
  context: RequestContext,
  status: number,
  message?: { kind: 'ok' | 'error'; text: string },
) {
  const token = randomToken()
  return plainPage(
    status,
    'Sign in to the dashboard',
    html`${message === undefined ? '' : html`<p class="flash ${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>`}
<form class="stack" method="post" action="/dashboard/sign-in">
<input type="hidden" name="csrf" value="${token}">
<label for="api-key">API key</label>
<input id="api-key" name="apiKey" type="password" autocomplete="current-password" required size="48" placeholder="svc_test_…">
<p><button type="submit">Sign in</button></p>
</form>
<p class="muted">The key is sent in this form's body only, never in a URL. The sandbox prints its key at start
(<code>wallet-rpc pay-sandbox</code>).</p>`,
    { 'set-cookie': setCookie(context, signInCookieName, token, signInTokenMs) },
  )
}

/** The mode a key selects (the spec: the mode follows from the API key). */
const modeOfKey = (apiKey: string): DashboardMode =>
  apiKey.startsWith('svc_') && !apiKey.startsWith('svc_test_') ? 'live' : 'test'

export const dashboardHome: Route = {
  method: 'GET',
  path: '/dashboard',
  auth: 'none',
  handle: () => redirect('/dashboard/payments'),
}

export const signInPage: Route = {
  method: 'GET',
  path: '/dashboard/sign-in',
  auth: 'none',
  handle: (context) => {
    if (typeof readSession(context) !== 'string') return redirect('/dashboard/payments')
    const expired = context.query.get('expired') === '1'
    return signInForm(
      context,
      200,
      expired ? { kind: 'error', text: 'Your session expired. Sign in again.' } : undefined,
    )
  },
}

/**
 * The key is checked by the API's own authentication; a wrong key re-shows the form (401). Success starts a fresh
 * session (a new random id, never one the browser brought) and drops the sign-in token.
 */
export const signInSubmit: Route = {
  method: 'POST',
  path: '/dashboard/sign-in',
  auth: 'none',
  handle: (context) => {
    const form = new URLSearchParams(context.rawBody)
    if (
      !isSameOrigin(context) ||
      !sameToken(cookies(context).get(signInCookieName) ?? '', form.get('csrf'))
    ) {
      return crossSiteRefusal()
    }
    const apiKey = (form.get('apiKey') ?? '').trim()
    if (apiKey === '') return signInForm(context, 401, { kind: 'error', text: 'Enter the API key.' })
    // The key picks the book (the spec: the mode follows from the key); without live mode, test mode refuses it.
    const mode = modeOfKey(apiKey)
    const sandbox = modeContext(context.sandbox, mode) ?? context.sandbox
    try {
      authenticate({ ...context, sandbox, headers: { 'api-key': apiKey } }, 'apiKey', sandbox.config)
    } catch (error) {
      if (!(error instanceof PayHttpError)) throw error
      return signInForm(context, 401, { kind: 'error', text: `Sign-in refused: ${error.message}.` })
    }
    const previous = readSession(context)
    if (typeof previous !== 'string') endSession(context.sandbox, previous)
    const session = createSession(sandbox, apiKey, mode)
    return redirect('/dashboard/payments', {
      'set-cookie': [
        setCookie(context, sessionCookieName, session.id, sessionLifetimeMs),
        clearCookie(context, signInCookieName),
      ],
    })
  },
}

export const signOut: Route = sessionAction('/dashboard/sign-out', async (context, session) => {
  endSession(context.sandbox, session)
  return {
    redirect: '/dashboard/sign-in',
    headers: { 'set-cookie': clearCookie(context, sessionCookieName) },
  }
})
