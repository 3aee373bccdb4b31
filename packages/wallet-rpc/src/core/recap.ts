import { group, item, quoted, type ReviewItem, type ReviewWarning } from './review.js'
import { hasHiddenCharacters, printableLine } from './text.js'
import { decodeUtf8Strict } from './utf8.js'

/**
 * ReCap (EIP-5573): a sign-in resource `urn:recap:<base64url JSON>` that grants the signed-in site
 * capabilities — `{ "att": { "<target>": { "<namespace>/<ability>": [ {…} ] } }, "prf": [ … ] }`. WalletConnect's
 * one-click auth uses target `eip155` with `request/<RPC method>` abilities (the methods the session may ask
 * for) and encodes with the standard base64 alphabet; both alphabets are read. What a signature grants is
 * shown, never skipped as an opaque URI.
 */

/** One target and what the signature lets the site do to it. */
export type RecapCapability = { target: string; abilities: string[] }

export type Recap = {
  capabilities: RecapCapability[]
  /** The RPC methods granted (`request/<method>` abilities). */
  rpcMethods: string[]
}

const prefix = 'urn:recap:'
/** Bounds on one ReCap: a resource is at most this many characters, with so many targets and abilities. */
const maxRecapLength = 8192
const maxTargets = 64
const maxAbilities = 256

export const isRecap = (resource: string): boolean => resource.toLowerCase().startsWith(prefix)

/** The capabilities a `urn:recap:` resource grants, or why it does not read as one. Never throws. */
export function decodeRecap(resource: string): { ok: true; recap: Recap } | { ok: false; reason: string } {
  if (!isRecap(resource)) return { ok: false, reason: 'not a urn:recap: resource' }
  if (resource.length > maxRecapLength)
    return { ok: false, reason: `longer than ${maxRecapLength} characters` }
  const bytes = base64Bytes(resource.slice(prefix.length))
  const text = bytes === undefined ? undefined : decodeUtf8Strict(bytes)
  if (text === undefined) return { ok: false, reason: 'not base64url-encoded UTF-8' }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'not JSON' }
  }
  const att = isRecord(json) && Object.hasOwn(json, 'att') ? json.att : undefined
  if (!isRecord(att)) return { ok: false, reason: 'no "att" object of capabilities' }
  const targets = Object.keys(att)
  if (targets.length === 0 || targets.length > maxTargets)
    return { ok: false, reason: `"att" must name 1 to ${maxTargets} targets` }
  const capabilities: RecapCapability[] = []
  const rpcMethods: string[] = []
  let count = 0
  for (const target of targets) {
    const abilities = att[target]
    if (!isRecord(abilities))
      return { ok: false, reason: `the abilities of ${quoted(target)} are not an object` }
    const names = Object.keys(abilities)
    count += names.length
    if (count > maxAbilities) return { ok: false, reason: `more than ${maxAbilities} abilities` }
    for (const name of [target, ...names]) {
      if (name === '' || hasHiddenCharacters(name) || /[\t\n\r]/.test(name))
        return { ok: false, reason: `${quoted(printableLine(name, 60))} holds hidden characters or is empty` }
    }
    for (const name of names) {
      // EIP-5573: an ability is `<namespace>/<name>`, its value a list of caveat objects.
      if (!/^[^/]+\/[^/]+$/.test(name))
        return { ok: false, reason: `ability ${quoted(name)} is not namespace/name` }
      const caveats = abilities[name]
      if (!Array.isArray(caveats) || !caveats.every(isRecord))
        return { ok: false, reason: `the caveats of ${quoted(name)} are not a list of objects` }
      if (name.startsWith('request/')) rpcMethods.push(name.slice('request/'.length))
    }
    capabilities.push({ target, abilities: names })
  }
  return { ok: true, recap: { capabilities, rpcMethods } }
}

/** The review group of a sign-in's ReCap resources: what each grants, or that it cannot be read. */
export function recapItems(resources: readonly string[]): ReviewItem | undefined {
  const lines: ReviewItem[] = []
  for (const [index, resource] of resources.entries()) {
    if (!isRecap(resource)) continue
    const decoded = decodeRecap(resource)
    if (!decoded.ok) lines.push(item(`Resource ${index + 1}`, `unreadable ReCap: ${decoded.reason}`))
    else
      for (const capability of decoded.recap.capabilities)
        lines.push(item(capability.target, capability.abilities.join(', ')))
  }
  return lines.length === 0 ? undefined : group('Capabilities granted (ReCap, EIP-5573)', lines)
}

/**
 * What a sign-in's ReCap resources grant, as warnings under `prefix` (`siwe`, `siws`…): a `caution` per
 * ReCap (`recap_rpc_methods` when it lets the site ask the wallet to run RPC methods, else `recap`), a
 * `danger` `recap_malformed` for one that cannot be read: signing it would grant what nobody was shown.
 */
export function recapWarnings(
  resources: readonly string[],
  prefix: string,
  grantee: string,
): ReviewWarning[] {
  const warnings: ReviewWarning[] = []
  for (const [index, resource] of resources.entries()) {
    if (!isRecap(resource)) continue
    const decoded = decodeRecap(resource)
    if (!decoded.ok) {
      warnings.push({
        code: `${prefix}.recap_malformed`,
        severity: 'danger',
        message: `Resource ${index + 1} is a ReCap that cannot be read (${decoded.reason}): signing would grant ${quoted(grantee)} capabilities nobody can show you.`,
      })
      continue
    }
    const { capabilities, rpcMethods } = decoded.recap
    const granted = capabilities
      .map((capability) => `${quoted(capability.target, 60)}: ${capability.abilities.join(', ')}`)
      .join('; ')
    warnings.push(
      rpcMethods.length > 0
        ? {
            code: `${prefix}.recap_rpc_methods`,
            severity: 'caution',
            message: `Signing in also lets ${quoted(grantee)} ask your wallet to run ${rpcMethods.join(', ')} (ReCap: ${granted}). Each request is still shown to you.`,
          }
        : {
            code: `${prefix}.recap`,
            severity: 'caution',
            message: `Signing in also grants ${quoted(grantee)} these capabilities (ReCap): ${granted}.`,
          },
    )
  }
  return warnings
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Base64 in either alphabet (`+/` or `-_`, not mixed), padding optional; undefined when it is not. */
function base64Bytes(text: string): Uint8Array | undefined {
  const body = text.replace(/={1,2}$/, '')
  const urlSafe = /^[A-Za-z0-9_-]*$/.test(body)
  if ((!urlSafe && !/^[A-Za-z0-9+/]*$/.test(body)) || body.length % 4 === 1) return undefined
  const digits = `${alphabet}${urlSafe ? '-_' : '+/'}`
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4))
  let bits = 0
  let value = 0
  let at = 0
  for (const character of body) {
    value = ((value << 6) | digits.indexOf(character)) & 0xffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      bytes[at++] = (value >> bits) & 0xff
    }
  }
  return bytes
}
