import { randomBytes, timingSafeEqual } from 'node:crypto'
import { header, type RequestContext, type SandboxContext } from '../../context.js'

/** The session cookie: only ever sent to /dashboard, never readable by script, never sent cross-site. */
export const sessionCookieName = 'wrpc_dashboard'
/** Sign-in's own CSRF token (double submit): there is no session yet to hold one. */
export const signInCookieName = 'wrpc_dashboard_signin'
/** A session ends after this long without a request… */
export const sessionIdleMs = 30 * 60 * 1000
/** …and at the latest this long after sign-in. */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000

/**
 * Which data a session sees. The sandbox serves test mode; live mode (separate data per API key) plugs in here:
 * the session keeps the key it signed in with and every page reads the data of that key's mode only.
 */
export type DashboardMode = 'test' | 'live'

/** A one-time message shown by the page a POST redirects to (POST-redirect-GET). */
export type Flash = {
  kind: 'ok' | 'error'
  message: string
  issues?: ReadonlyArray<{ field: string; message: string }>
  /** A secret shown once (reveal, rotate), never in a URL. */
  secret?: string
}

export type Session = {
  id: string
  /** Kept server-side only: the pages call the API's handlers with it, so they pass the API's authentication. */
  apiKey: string
  mode: DashboardMode
  csrfToken: string
  createdAt: number
  lastSeenAt: number
  flash?: Flash
}

/**
 * The sessions of one server, shared by its modes: a session belongs to the mode of the key it signed in with, and
 * the server sends the session's requests to that mode's routes (see `dashboardModeOf`).
 */
type DashboardGroup = {
  sessions: Map<string, Session>
  modes: Partial<Record<DashboardMode, SandboxContext>>
}

const groups = new WeakMap<SandboxContext, DashboardGroup>()

function groupOf(sandbox: SandboxContext): DashboardGroup {
  let group = groups.get(sandbox)
  if (group === undefined) {
    group = { sessions: new Map(), modes: { test: sandbox } }
    groups.set(sandbox, group)
  }
  return group
}

/** Called by the server with its modes: live sessions live beside test ones and reach the live book. */
export function registerDashboardModes(test: SandboxContext, live?: SandboxContext): void {
  const group: DashboardGroup = {
    sessions: new Map(),
    modes: { test, ...(live === undefined ? {} : { live }) },
  }
  groups.set(test, group)
  if (live !== undefined) groups.set(live, group)
}

/** The context serving `mode` on this server, if it has that mode. */
export const modeContext = (sandbox: SandboxContext, mode: DashboardMode): SandboxContext | undefined =>
  groupOf(sandbox).modes[mode]

/** The mode of the session a /dashboard request's cookie names, for the server's mode selection. */
export function dashboardModeOf(
  sandbox: SandboxContext,
  cookieHeader: string | undefined,
): DashboardMode | undefined {
  const id = parseCookies(cookieHeader).get(sessionCookieName)
  return id === undefined ? undefined : groupOf(sandbox).sessions.get(id)?.mode
}

export const randomToken = (): string => randomBytes(32).toString('base64url')

const isExpired = (session: Session, now: number): boolean =>
  now - session.lastSeenAt >= sessionIdleMs || now - session.createdAt >= sessionLifetimeMs

export function createSession(sandbox: SandboxContext, apiKey: string, mode: DashboardMode): Session {
  const now = sandbox.config.clock()
  const store = groupOf(sandbox).sessions
  for (const [id, session] of store) if (isExpired(session, now)) store.delete(id)
  const session: Session = {
    id: randomToken(),
    apiKey,
    mode,
    csrfToken: randomToken(),
    createdAt: now,
    lastSeenAt: now,
  }
  store.set(session.id, session)
  return session
}

export function endSession(sandbox: SandboxContext, session: Session): void {
  groupOf(sandbox).sessions.delete(session.id)
}

export const cookies = (context: RequestContext): Map<string, string> =>
  parseCookies(header(context, 'cookie'))

function parseCookies(cookieHeader: string | undefined): Map<string, string> {
  const jar = new Map<string, string>()
  for (const part of (cookieHeader ?? '').split(';')) {
    const separator = part.indexOf('=')
    if (separator < 0) continue
    const name = part.slice(0, separator).trim()
    if (!jar.has(name)) jar.set(name, part.slice(separator + 1).trim())
  }
  return jar
}

/**
 * The request's current session (its idle timer restarted), or why there is none: `expired` when the cookie named a
 * session that timed out (the sign-in page then says so), `none` otherwise.
 */
export function readSession(context: RequestContext): Session | 'expired' | 'none' {
  const id = cookies(context).get(sessionCookieName)
  if (id === undefined) return 'none'
  const group = groupOf(context.sandbox)
  const store = group.sessions
  const session = store.get(id)
  // A session only ever reads its own mode's book.
  if (session === undefined || group.modes[session.mode] !== context.sandbox) return 'none'
  const now = context.sandbox.config.clock()
  if (isExpired(session, now)) {
    store.delete(id)
    return 'expired'
  }
  session.lastSeenAt = now
  return session
}

/** Behind a TLS-terminating proxy the cookie is also `Secure`. */
const secureSuffix = (context: RequestContext): string =>
  header(context, 'x-forwarded-proto') === 'https' ? '; Secure' : ''

export function setCookie(context: RequestContext, name: string, value: string, maxAgeMs: number): string {
  return `${name}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secureSuffix(context)}`
}

export const clearCookie = (context: RequestContext, name: string): string => setCookie(context, name, '', 0)

export function sameToken(expected: string, actual: string | null | undefined): boolean {
  // No token issued (no sign-in cookie) matches nothing, not even an empty one.
  if (typeof actual !== 'string' || expected.length === 0) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}
