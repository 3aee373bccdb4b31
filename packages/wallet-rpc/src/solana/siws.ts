import { base58 } from '@scure/base'
import { parseDateTime } from '../core/dateTime.js'
import { quoted, type SignInRequest } from '../core/review.js'
import { checkSyntax, parseSignIn, type SignInParseResult } from '../core/signIn.js'
import { parseAuthority, parseUri, pcharPattern } from '../core/uri.js'
import { solanaDevnet, solanaLocalnet, solanaMainnet, solanaTestnet } from './chains.js'

/**
 * Sign In With Solana messages, parsed strictly by the ABNF of Phantom's specification
 * (github.com/phantom/sign-in-with-solana, "ABNF Message Format"), which `@solana/wallet-standard-util`'s
 * `createSignInMessageText` writes. EIP-4361's grammar with Solana's differences: the domain is an
 * authority without a scheme, the address base58, every field after the statement optional but in its
 * place, and Chain ID one of the cluster names below.
 *
 * ```
 * sign-in-with-solana = message-domain " wants you to sign in with your Solana account:" LF message-address
 *                       [ LF LF message-statement ] [ LF advanced-fields ]
 * advanced-fields     = [ LF "URI: " URI ] [ LF "Version: " "1" ] [ LF "Chain ID: " chain-id ]
 *                       [ LF "Nonce: " 8*( ALPHA / DIGIT ) ] [ LF "Issued At: " date-time ]
 *                       [ LF "Expiration Time: " date-time ] [ LF "Not Before: " date-time ]
 *                       [ LF "Request ID: " *pchar ] [ LF "Resources:" *( LF "- " URI ) ]
 * ```
 */
export type SiwsParseResult = SignInParseResult

const headerSuffix = ' wants you to sign in with your Solana account:'

/** Matched loosely (any case, any whitespace), so a look-alike that does not parse is still caught. */
const siwsPhrase = /wants\s+you\s+to\s+sign\s+in\s+with\s+your\s+solana\s+account/i

export function looksLikeSiws(text: string): boolean {
  return siwsPhrase.test(text)
}

/** `message-chain-id` → the CAIP-2 chain it names. */
export const siwsChains: Readonly<Record<string, string>> = {
  mainnet: solanaMainnet,
  'solana:mainnet': solanaMainnet,
  devnet: solanaDevnet,
  'solana:devnet': solanaDevnet,
  testnet: solanaTestnet,
  'solana:testnet': solanaTestnet,
  localnet: solanaLocalnet,
}

// `32*44( base58 alphabet )`, and it must decode to a 32-byte public key.
const addressPattern = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/
// `1*( reserved / unreserved / " " )`: printable ASCII except `"`, `%`, `<`, `>`, `\`, `^`, backtick, `{`, `|`, `}`.
const statementPattern = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]+$/
const noncePattern = /^[A-Za-z0-9]{8,}$/

/** The tags of the advanced fields, in the only order the ABNF allows. */
const fieldTags = [
  'URI',
  'Version',
  'Chain ID',
  'Nonce',
  'Issued At',
  'Expiration Time',
  'Not Before',
  'Request ID',
] as const
type FieldTag = (typeof fieldTags)[number]

const isFieldLine = (line: string) =>
  line === 'Resources:' || fieldTags.some((tag) => line.startsWith(`${tag}: `))

export function parseSiwsMessage(text: string): SiwsParseResult {
  return parseSignIn(parseStrict, text)
}

function parseStrict(text: string): SignInRequest {
  const lines = text.split('\n')
  const header = lines[0]!
  checkSyntax(header.endsWith(headerSuffix), `line 1 must end with "${headerSuffix.trimStart()}"`)
  const domain = header.slice(0, -headerSuffix.length)
  checkSyntax(
    parseAuthority(domain) !== undefined,
    `the domain ${quoted(domain)} is not an RFC 3986 authority`,
  )

  const address = lines[1]
  checkSyntax(address !== undefined, 'the address (line 2) is missing')
  checkSyntax(
    addressPattern.test(address) && base58.decode(address).length === 32,
    `line 2: ${quoted(address)} is not a base58 32-byte public key`,
  )

  let index = 2
  let statement: string | undefined
  // `[ LF LF message-statement ]`: a blank line, then the statement unless what follows is already a field.
  if (index < lines.length && lines[index] === '' && lines[index + 1] !== undefined) {
    const next = lines[index + 1]!
    if (!isFieldLine(next)) {
      checkSyntax(
        statementPattern.test(next),
        `line ${index + 2}: the statement holds characters the spec does not allow`,
      )
      statement = next
      index += 2
    }
  }

  const fields = new Map<FieldTag, string>()
  const resources: string[] = []
  if (index < lines.length) {
    // `[ LF advanced-fields ]`: a blank line, then the fields, each on its own line and in the ABNF's order.
    checkSyntax(lines[index] === '', `line ${index + 1} must be empty before the fields`)
    index += 1
    let tagIndex = 0
    for (; index < lines.length; index++) {
      const line = lines[index]!
      if (line === 'Resources:') {
        index += 1
        break
      }
      const found = fieldTags.findIndex(
        (tag, position) => position >= tagIndex && line.startsWith(`${tag}: `),
      )
      checkSyntax(found !== -1, `line ${index + 1}: ${quoted(line)} is out of place or not a SIWS field`)
      const tag = fieldTags[found]!
      fields.set(tag, line.slice(tag.length + 2))
      tagIndex = found + 1
    }
    for (; index < lines.length; index++) {
      const line = lines[index]!
      checkSyntax(line.startsWith('- '), `line ${index + 1}: a resource must be "- <URI>"`)
      const resource = line.slice(2)
      checkSyntax(parseUri(resource) !== undefined, `resource ${quoted(resource)} is not an RFC 3986 URI`)
      resources.push(resource)
    }
  }

  const uri = fields.get('URI')
  if (uri !== undefined) checkSyntax(parseUri(uri) !== undefined, `URI ${quoted(uri)} is not an RFC 3986 URI`)
  const version = fields.get('Version')
  if (version !== undefined) checkSyntax(version === '1', `Version must be 1, not ${quoted(version)}`)
  const chain = fields.get('Chain ID')
  if (chain !== undefined) {
    checkSyntax(
      Object.hasOwn(siwsChains, chain),
      `Chain ID ${quoted(chain)} is not a Solana cluster the spec names`,
    )
  }
  const nonce = fields.get('Nonce')
  if (nonce !== undefined) checkSyntax(noncePattern.test(nonce), 'Nonce must be at least 8 letters or digits')
  for (const tag of ['Issued At', 'Expiration Time', 'Not Before'] as const) {
    const value = fields.get(tag)
    if (value !== undefined)
      checkSyntax(parseDateTime(value) !== undefined, `${tag} ${quoted(value)} is not an RFC 3339 date-time`)
  }
  const requestId = fields.get('Request ID')
  if (requestId !== undefined)
    checkSyntax(pcharPattern.test(requestId), 'Request ID holds characters the spec does not allow')

  return {
    scheme: undefined,
    domain,
    account: address,
    chain,
    uri,
    version,
    statement,
    nonce,
    issuedAt: fields.get('Issued At'),
    expirationTime: fields.get('Expiration Time'),
    notBefore: fields.get('Not Before'),
    requestId,
    resources,
  }
}
