import { parseDateTime } from '../core/dateTime.js'
import { quoted, type SignInRequest } from '../core/review.js'
import { checkSyntax, parseSignIn, type SignInParseResult } from '../core/signIn.js'
import { parseAuthority, parseUri, pcharPattern, schemePattern } from '../core/uri.js'
import { getAddress } from './viemUtils.js'

/**
 * Sign-In with Ethereum (EIP-4361) messages, parsed strictly by the EIP's ABNF: every line in its place,
 * LF only, `Version: 1`, an EIP-55 checksummed address, RFC 3986 authority/URIs, RFC 3339 times, a nonce
 * of at least 8 alphanumerics, a statement without line breaks. Anything else is not a SIWE message.
 */
export type SiweParseResult = SignInParseResult<SiweMessage>

/** A sign-in request with the fields EIP-4361 always has. */
export type SiweMessage = SignInRequest & {
  chain: string
  uri: string
  version: string
  nonce: string
  issuedAt: string
}

const headerSuffix = ' wants you to sign in with your Ethereum account:'

/**
 * The EIP asks wallets to warn when this phrase appears in a message that does not parse. Matched loosely
 * (any case, any run of whitespace) so a line break or a capital letter does not slip a look-alike past.
 */
const siwePhrase = /wants\s+you\s+to\s+sign\s+in\s+with\s+your\s+ethereum\s+account/i

export function looksLikeSiwe(text: string): boolean {
  return siwePhrase.test(text)
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/
// RFC 3986 `reserved / unreserved / " "`: printable ASCII except `"`, `%`, `<`, `>`, `\`, `^`, backtick, `{`, `|`, `}`.
const statementPattern = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]+$/
const noncePattern = /^[A-Za-z0-9]{8,}$/
const chainIdPattern = /^[0-9]+$/

/** Reads the message line by line, in the ABNF's order; each `expect` names what was missing. */
class Lines {
  private index = 0
  constructor(private readonly lines: readonly string[]) {}

  get done(): boolean {
    return this.index >= this.lines.length
  }

  peek(ahead = 0): string | undefined {
    return this.lines[this.index + ahead]
  }

  next(what: string): string {
    const line = this.lines[this.index]
    checkSyntax(line !== undefined, `${what} is missing`)
    this.index += 1
    return line
  }

  /** The value of a `Tag: value` line, which must come next. */
  tagged(tag: string, what = tag): string {
    const line = this.next(`"${tag}: " (line ${this.index + 1})`)
    checkSyntax(line.startsWith(`${tag}: `), `line ${this.index}: expected "${what}: …"`)
    return line.slice(tag.length + 2)
  }

  /** The value of an optional `Tag: value` line, if it comes next. */
  optional(tag: string): string | undefined {
    return this.peek()?.startsWith(`${tag}: `) ? this.tagged(tag) : undefined
  }

  get lineNumber(): number {
    return this.index
  }
}

function dateTime(value: string, field: string): string {
  checkSyntax(parseDateTime(value) !== undefined, `${field} ${quoted(value)} is not an RFC 3339 date-time`)
  return value
}

function uri(value: string, field: string): string {
  checkSyntax(parseUri(value) !== undefined, `${field} ${quoted(value)} is not an RFC 3986 URI`)
  return value
}

export function parseSiweMessage(text: string): SiweParseResult {
  return parseSignIn(parseStrict, text)
}

function parseStrict(text: string): SiweMessage {
  const lines = new Lines(text.split('\n'))

  const header = lines.next('the header line')
  checkSyntax(header.endsWith(headerSuffix), `line 1 must end with "${headerSuffix.trimStart()}"`)
  let domain = header.slice(0, -headerSuffix.length)
  let scheme: string | undefined
  const separator = domain.indexOf('://')
  if (separator !== -1) {
    scheme = domain.slice(0, separator)
    domain = domain.slice(separator + 3)
    checkSyntax(schemePattern.test(scheme), `the scheme ${quoted(scheme)} is not an RFC 3986 scheme`)
  }
  checkSyntax(
    parseAuthority(domain) !== undefined,
    `the domain ${quoted(domain)} is not an RFC 3986 authority`,
  )

  const address = lines.next('the address (line 2)')
  checkSyntax(
    addressPattern.test(address),
    `line 2: ${quoted(address)} is not a 0x-prefixed 20-byte hex address`,
  )
  checkSyntax(getAddress(address) === address, `line 2: the address ${address} is not EIP-55 checksummed`)

  checkSyntax(lines.next('the blank line 3') === '', 'line 3 must be empty')
  let statement: string | undefined
  // `statement = *( reserved / unreserved / " " )`: a present but empty statement is a blank line of its own.
  if (lines.peek() !== '' || lines.peek(1) === '') {
    statement = lines.next('the statement')
    checkSyntax(
      statement === '' || statementPattern.test(statement),
      'line 4: the statement holds characters the EIP does not allow',
    )
  }
  checkSyntax(
    lines.next('the blank line after the statement') === '',
    `line ${lines.lineNumber} must be empty`,
  )

  const uriValue = uri(lines.tagged('URI'), 'URI')
  const version = lines.tagged('Version')
  checkSyntax(version === '1', `Version must be 1, not ${quoted(version)}`)
  const chain = lines.tagged('Chain ID')
  checkSyntax(chainIdPattern.test(chain), `Chain ID ${quoted(chain)} is not a decimal number`)
  const nonce = lines.tagged('Nonce')
  checkSyntax(noncePattern.test(nonce), 'Nonce must be at least 8 letters or digits')
  const issuedAt = dateTime(lines.tagged('Issued At'), 'Issued At')
  const expiration = lines.optional('Expiration Time')
  const notBefore = lines.optional('Not Before')
  const requestId = lines.optional('Request ID')
  // `*pchar`: an empty id (`Request ID: `) is allowed.
  if (requestId !== undefined)
    checkSyntax(pcharPattern.test(requestId), 'Request ID holds characters the EIP does not allow')

  const resources: string[] = []
  if (lines.peek() === 'Resources:') {
    lines.next('Resources:')
    while (!lines.done) {
      const line = lines.next('a resource')
      checkSyntax(line.startsWith('- '), `line ${lines.lineNumber}: a resource must be "- <URI>"`)
      resources.push(uri(line.slice(2), `resource ${resources.length + 1}`))
    }
  }
  checkSyntax(
    lines.done,
    `line ${lines.lineNumber + 1}: ${quoted(lines.peek() ?? '')} is out of place or not a SIWE field`,
  )

  return {
    scheme,
    domain,
    account: address,
    chain,
    uri: uriValue,
    version,
    statement,
    nonce,
    issuedAt,
    expirationTime: expiration === undefined ? undefined : dateTime(expiration, 'Expiration Time'),
    notBefore: notBefore === undefined ? undefined : dateTime(notBefore, 'Not Before'),
    requestId,
    resources,
  }
}
