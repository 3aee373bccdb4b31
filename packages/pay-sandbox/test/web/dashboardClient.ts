import type { PaySandbox } from '../../src/index.js'

export type PageReply = { status: number; text: string; headers: Headers; location: string | null }

/**
 * A form-posting client for the dashboard with its own cookie jar, as a browser without JavaScript would be:
 * it sends the cookies it was given (all are Path=/dashboard), its own Origin on POSTs, follows nothing itself.
 */
export function dashboardClient(sandbox: PaySandbox) {
  const jar = new Map<string, string>()
  const origin = sandbox.url
  const remember = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';')
      const separator = pair!.indexOf('=')
      const name = pair!.slice(0, separator)
      const value = pair!.slice(separator + 1)
      if (value === '' || /Max-Age=0/.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
  }
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  async function request(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string | string[]>,
    headers: Record<string, string | undefined> = {},
  ): Promise<PageReply> {
    const sent: Record<string, string> = {}
    if (jar.size > 0) sent.cookie = cookieHeader()
    if (method === 'POST') {
      sent.origin = origin
      sent['content-type'] = 'application/x-www-form-urlencoded'
    }
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) delete sent[name]
      else sent[name] = value
    }
    const body = new URLSearchParams()
    for (const [name, value] of Object.entries(form ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item)
    }
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: sent,
      redirect: 'manual',
      ...(method === 'POST' ? { body: body.toString() } : {}),
    })
    remember(response.headers)
    return {
      status: response.status,
      text: await response.text(),
      headers: response.headers,
      location: response.headers.get('location'),
    }
  }
  /** The value of the page's first hidden CSRF field. */
  const csrfOf = (page: PageReply): string => {
    const match = /name="csrf" value="([^"]+)"/.exec(page.text)
    if (match === null) throw new Error(`no CSRF field on the page (status ${page.status})`)
    return match[1]!
  }
  async function submitSignIn(apiKey: string): Promise<PageReply> {
    const form = await request('GET', '/dashboard/sign-in')
    return request('POST', '/dashboard/sign-in', { csrf: csrfOf(form), apiKey })
  }
  return {
    jar,
    get: (path: string, headers?: Record<string, string | undefined>) =>
      request('GET', path, undefined, headers),
    post: (
      path: string,
      form: Record<string, string | string[]>,
      headers?: Record<string, string | undefined>,
    ) => request('POST', path, form, headers),
    csrfOf,
    /** Fills in the sign-in form with `apiKey` and sends it; the reply as it came. */
    submitSignIn,
    /** Signs in through the form; returns the CSRF token of the session's pages. */
    async signIn(apiKey = sandbox.apiKey): Promise<string> {
      const reply = await submitSignIn(apiKey)
      if (reply.status !== 303) throw new Error(`sign-in answered ${reply.status}`)
      return csrfOf(await request('GET', '/dashboard/payments'))
    },
  }
}

/** Undoes the pages' escaping (`&#38;` …) of an attribute or text. */
export const unescapeHtml = (text: string): string =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
