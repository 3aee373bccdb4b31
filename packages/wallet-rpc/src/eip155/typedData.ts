import * as v from 'valibot'
import type { Hex, TypedDataDefinition } from 'viem'
import { InvalidParamsError, PolicyRefusedError } from '../core/errors.js'
import { group, item, type ReviewItem, type ReviewWarning } from '../core/review.js'
import { hasHiddenCharacters, printableLine } from '../core/text.js'
import { type Pause, timeSlicer } from '../core/yielding.js'
import { fastTypedDataDigest } from './eip712.js'
import { isUnlimited, permit2MaxAmount } from './transaction/review.js'
import { bytesToHex, hexToBytes, hashTypedData as viemHashTypedData } from './viemUtils.js'

/**
 * EIP-712 typed data as wallets receive it: an object or its JSON string. The structure is checked here;
 * hashing (`fastTypedDataDigest`, else viem, by viem's rules) then checks every value against its declared type
 * (ranges, byte sizes, EIP-55).
 */
const typedDataSchema = v.object({
  types: v.record(
    v.string(),
    v.array(v.strictObject({ name: v.string('must be a string'), type: v.string('must be a string') })),
    'must map type names to field lists',
  ),
  primaryType: v.string('must be a string'),
  domain: v.record(v.string(), v.unknown(), 'must be an object'),
  message: v.record(v.string(), v.unknown(), 'must be an object'),
})

/**
 * Typed data limits (README of this namespace): hashing and reviewing cost grows with every value, so a
 * message with a million-element array is refused up front, with the limit named, before any hashing.
 */
export const typedDataLimits = {
  maxTypes: 256,
  maxFieldsPerType: 256,
  maxArrayLength: 1024,
  maxValues: 20_000,
  /**
   * Typed data holding a type or value our encoder does not read (`uint` for `uint256`, a number for a string,
   * a bad checksum, …) is hashed or refused by viem, in one block that grows with the values: past this many
   * (counted as the limits count them) it is refused instead (about 1 ms in Node, 30 ms in Hermes'
   * interpreter; 20,000 values took viem 207 ms in Node).
   */
  maxValuesForViem: 100,
}

function assertTypeLimits(typedData: v.InferOutput<typeof typedDataSchema>, path: string): void {
  const typeNames = Object.keys(typedData.types)
  if (typeNames.length > typedDataLimits.maxTypes)
    throw new InvalidParamsError(`more than ${typedDataLimits.maxTypes} types (limit)`, {
      path: `${path}.types`,
    })
  for (const name of typeNames) {
    if (typedData.types[name]!.length > typedDataLimits.maxFieldsPerType) {
      throw new InvalidParamsError(
        `type ${name} has more than ${typedDataLimits.maxFieldsPerType} fields (limit)`,
        {
          path: `${path}.types.${name}`,
        },
      )
    }
  }
}

/** A value met while walking typed data: its parent and key spell its path, only when an error needs it. */
type Visit = { value: unknown; key: string; parent: Visit | undefined }

function pathOf(path: string, visit: Visit): string {
  const keys: string[] = []
  for (let at: Visit | undefined = visit; at; at = at.parent) keys.push(at.key)
  return [path, ...keys.reverse()].join('.')
}

/**
 * Walks the domain and then the message depth first, without recursion, giving the event loop a turn every
 * few ms: counts the values against the limits (refused at the first value or array past them), then
 * refuses numbers that are not exact integers. JSON numbers past 2^53 arrive already rounded, and fractions
 * have no EIP-712 encoding: signing them would sign a value the dapp did not write; such numbers must be
 * sent as strings. Returns the number of values (as the limits count them: the domain and message too).
 */
async function checkValues(
  typedData: v.InferOutput<typeof typedDataSchema>,
  path: string,
  pause: Pause,
): Promise<number> {
  const stack: Visit[] = [
    { value: typedData.message, key: 'message', parent: undefined },
    { value: typedData.domain, key: 'domain', parent: undefined },
  ]
  let values = 0
  let inexact: Visit | undefined
  while (stack.length > 0) {
    if ((values & 63) === 0) await pause()
    const visit = stack.pop()!
    const { value } = visit
    if (++values > typedDataLimits.maxValues) {
      throw new InvalidParamsError(`typed data holds more than ${typedDataLimits.maxValues} values (limit)`, {
        path: pathOf(path, visit),
      })
    }
    if (typeof value === 'number' && !Number.isSafeInteger(value)) inexact ??= visit
    if (Array.isArray(value)) {
      if (value.length > typedDataLimits.maxArrayLength) {
        throw new InvalidParamsError(`array longer than ${typedDataLimits.maxArrayLength} entries (limit)`, {
          path: pathOf(path, visit),
        })
      }
      for (let index = value.length - 1; index >= 0; index--)
        stack.push({ value: value[index], key: String(index), parent: visit })
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, entry] = entries[index]!
        stack.push({ value: entry, key, parent: visit })
      }
    }
  }
  if (inexact) {
    throw new InvalidParamsError('numbers must be whole and below 2^53; send larger values as strings', {
      path: pathOf(path, inexact),
    })
  }
  return values
}

/** A typed-data request checked and hashed, ready for review and signing. */
type CheckedTypedData = { definition: TypedDataDefinition; digest: Hex; digestBytes: Uint8Array }

/**
 * Parses and validates typed data at `path`. `types.EIP712Domain` is required: when it is missing,
 * eth-sig-util hashes an empty domain while viem infers one, so the digest would depend on the wallet
 * (research/ethereum.md §3.9). A `domain.chainId`, in any of its spellings, must equal the request's chain.
 */
export async function checkTypedData(
  input: unknown,
  path: string,
  chainId: number,
): Promise<CheckedTypedData> {
  let raw = input
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input)
    } catch {
      throw new InvalidParamsError('typed data is not valid JSON', { path })
    }
  }
  const parsed = v.safeParse(typedDataSchema, raw, { abortEarly: true })
  if (!parsed.success) {
    const issue = parsed.issues[0]
    const subPath = v.getDotPath(issue)
    throw new InvalidParamsError(issue.message, { path: subPath ? `${path}.${subPath}` : path })
  }
  const typedData = parsed.output
  // One slicer for the whole check: the walk and the hashing share its time slices.
  const pause = timeSlicer()
  assertTypeLimits(typedData, path)
  const values = await checkValues(typedData, path, pause)
  if (!Object.hasOwn(typedData.types, 'EIP712Domain')) {
    throw new InvalidParamsError('types.EIP712Domain is required (wallets disagree on how to infer it)', {
      path: `${path}.types.EIP712Domain`,
    })
  }
  if (typedData.primaryType !== 'EIP712Domain' && !Object.hasOwn(typedData.types, typedData.primaryType)) {
    throw new InvalidParamsError(`primaryType ${typedData.primaryType} is not defined in types`, {
      path: `${path}.primaryType`,
    })
  }
  // Only the fields EIP712Domain declares are hashed (viem and eth-sig-util skip the rest); keeping only
  // those means the review and the warnings never show a domain the signature does not commit to.
  const domain: Record<string, unknown> = {}
  for (const { name } of typedData.types.EIP712Domain ?? []) {
    if (Object.hasOwn(typedData.domain, name)) domain[name] = typedData.domain[name]
  }
  if (typedData.domain.chainId !== undefined) {
    const domainChainId = chainIdValue(typedData.domain.chainId, `${path}.domain.chainId`)
    if (domainChainId !== BigInt(chainId)) {
      throw new PolicyRefusedError(
        `typed data domain.chainId ${domainChainId} differs from the request's chain eip155:${chainId}`,
        { rule: 'chain_mismatch' },
      )
    }
    // Hash the number, not its spelling: viem encodes a decimal or hex string differently per version.
    if (Object.hasOwn(domain, 'chainId')) domain.chainId = domainChainId
  }
  const definition = {
    types: typedData.types,
    primaryType: typedData.primaryType,
    domain,
    message: typedData.message,
  } as unknown as TypedDataDefinition
  let digestBytes: Uint8Array | undefined
  try {
    digestBytes = await fastTypedDataDigest(definition, pause)
    if (digestBytes === undefined && values <= typedDataLimits.maxValuesForViem)
      digestBytes = hexToBytes(viemHashTypedData(definition))
  } catch (error) {
    // viem's validation (ranges, sizes, checksums, unknown types) and malformed nesting alike.
    const short = (error as { shortMessage?: unknown } | null)?.shortMessage
    const reason = typeof short === 'string' ? short : 'typed data does not match its types'
    throw new InvalidParamsError(reason, { path })
  }
  if (digestBytes === undefined) {
    throw new InvalidParamsError(
      `typed data of more than ${typedDataLimits.maxValuesForViem} values must use only what the wallet's own encoder reads: standard type names (uint256, not uint) and values spelled the usual way (a string for string, 0x hex for bytes, an EIP-55 or lower-case address, an integer in range as a number or a decimal or 0x string) (limit)`,
      { path },
    )
  }
  // The caller builds the review next (thousands of values on a slow VM): a turn first if this slice is spent.
  await pause()
  return { definition, digest: bytesToHex(digestBytes), digestBytes }
}

/** `domain.chainId` as a number, a decimal string or a 0x hex string (MetaMask accepts all three). */
function chainIdValue(value: unknown, path: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (
    typeof value === 'string' &&
    (/^(?:0|[1-9]\d{0,77})$/.test(value) || /^0x[0-9a-fA-F]{1,64}$/.test(value))
  ) {
    return BigInt(value)
  }
  throw new InvalidParamsError('domain.chainId must be a whole number, a decimal string or a 0x hex string', {
    path,
  })
}

// Review

type Field = { name: string; type: string }

/**
 * Domain, primary type and the message as a tree following its declared types. A string (or a field or type
 * name) holding characters that hide or reorder text (U+202E…) is shown with them written out (`\u{202E}`),
 * and `onHidden` is told where: the user reads what is signed, not what the characters make it look like.
 */
export function typedDataItems(
  definition: TypedDataDefinition,
  onHidden?: (label: string) => void,
): ReviewItem[] {
  const types = definition.types as Record<string, readonly Field[]>
  const shown = (text: string, label: string) => {
    if (!hasHiddenCharacters(text)) return text
    onHidden?.(label)
    return printableLine(text, text.length)
  }
  const structItems = (typeName: string, value: unknown): ReviewItem[] => {
    const record = (value ?? {}) as Record<string, unknown>
    return (types[typeName] ?? []).map((field) => valueItem(field.name, field.type, record[field.name]))
  }
  const valueItem = (name: string, type: string, value: unknown): ReviewItem => {
    const label = shown(name, name)
    const array = /^(.*)\[(\d*)\]$/.exec(type)
    if (array && Array.isArray(value)) {
      const elementType = array[1]!
      return group(
        `${label} (${shown(type, name)})`,
        value.map((element, index) => valueItem(`[${index}]`, elementType, element)),
      )
    }
    if (Object.hasOwn(types, type)) return group(`${label} (${shown(type, name)})`, structItems(type, value))
    return item(label, typeof value === 'string' ? shown(value, name) : display(value))
  }
  const items: ReviewItem[] = [
    group('Domain', structItems('EIP712Domain', definition.domain)),
    item('Primary type', shown(definition.primaryType, 'primaryType')),
  ]
  if (definition.primaryType !== 'EIP712Domain') {
    const message = definition.message as Record<string, unknown>
    items.push(group('Message', structItems(definition.primaryType, message)))
  }
  return items
}

function display(value: unknown): string {
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean')
    return String(value)
  return JSON.stringify(value) ?? String(value)
}

const permit2TypeNames = new Set([
  'PermitSingle',
  'PermitBatch',
  'PermitTransferFrom',
  'PermitBatchTransferFrom',
  'PermitWitnessTransferFrom',
  'PermitBatchWitnessTransferFrom',
])

/**
 * A signature that lets someone else move the signer's tokens without a transaction: ERC-2612 `Permit`
 * (and DAI's `allowed` variant) and Uniswap Permit2. Flagged `caution`, naming the spender and the amount.
 */
export function permitWarnings(definition: TypedDataDefinition): ReviewWarning[] {
  const message = definition.message as Record<string, unknown>
  const domain = (definition.domain ?? {}) as Record<string, unknown>
  const spender = typeof message.spender === 'string' ? message.spender : undefined
  if (spender === undefined) return []
  const contract =
    typeof domain.verifyingContract === 'string' ? domain.verifyingContract : 'unknown contract'
  const isPermit2 = domain.name === 'Permit2' || permit2TypeNames.has(definition.primaryType)
  if (isPermit2) {
    const amounts = permit2Amounts(message)
    return [
      {
        code: 'typed_data.permit2',
        severity: 'caution',
        message: `Permit2 signature: lets ${spender} spend ${amounts.join(', ') || 'tokens'} through ${contract}.`,
      },
    ]
  }
  if (definition.primaryType === 'Permit') {
    const amount =
      message.allowed === true
        ? 'an unlimited amount'
        : describeAmount(message.value ?? message.amount, 'tokens')
    return [
      {
        code: 'typed_data.permit',
        severity: 'caution',
        message: `Token permit: lets ${spender} spend ${amount} of token ${contract}.`,
      },
    ]
  }
  return []
}

function permit2Amounts(message: Record<string, unknown>): string[] {
  const entries = [message.details, message.permitted].flatMap((entry) =>
    Array.isArray(entry) ? entry : entry === undefined ? [] : [entry],
  ) as Array<Record<string, unknown> | null>
  return entries
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .map((entry) => {
      const expiration = expirationOf(entry.expiration)
      return `${describePermit2Amount(entry.amount)} of ${String(entry.token)}${expiration}`
    })
}

function describePermit2Amount(value: unknown): string {
  let amount: bigint
  try {
    amount = BigInt(value as string)
  } catch {
    return 'tokens'
  }
  if (amount >= permit2MaxAmount) return `an unlimited amount (Permit2's uint160 maximum, ${amount})`
  return describeAmount(value, 'tokens')
}

function expirationOf(value: unknown): string {
  let seconds: bigint
  try {
    seconds = BigInt(value as string)
  } catch {
    return ''
  }
  if (seconds === 0n) return ''
  return seconds >= 2n ** 47n - 1n
    ? ' (never expiring)'
    : ` (until ${new Date(Number(seconds) * 1000).toISOString()})`
}

function describeAmount(value: unknown, fallback: string): string {
  let amount: bigint
  try {
    amount = BigInt(value as string)
  } catch {
    return fallback
  }
  return isUnlimited(amount) ? `an unlimited amount (${amount})` : `${amount} (base units)`
}
