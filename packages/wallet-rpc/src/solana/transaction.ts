import { addressOfKey, encodeShortVec, keyText, WireReader } from './encoding.js'

export type MessageHeader = {
  numRequiredSignatures: number
  numReadonlySignedAccounts: number
  numReadonlyUnsignedAccounts: number
}

export type CompiledInstruction = {
  /** Index into the message's accounts (static keys, then lookup-table writable, then readonly). */
  programIdIndex: number
  accountIndexes: number[]
  data: Uint8Array
}

export type AddressTableLookup = {
  /** The lookup table's address. */
  accountKey: Uint8Array
  writableIndexes: number[]
  readonlyIndexes: number[]
}

/** A decoded Solana message (legacy or v0), with the exact bytes every signature covers. */
export type SolanaMessage = {
  version: 'legacy' | 0
  header: MessageHeader
  staticAccountKeys: Uint8Array[]
  /** The static account keys in base58, in the same order (computed once: every review names them). */
  staticAddresses: string[]
  recentBlockhash: Uint8Array
  instructions: CompiledInstruction[]
  addressTableLookups: AddressTableLookup[]
  /** The serialized message as received: what is signed, never re-encoded. */
  bytes: Uint8Array
}

export type SolanaTransaction = {
  /** One 64-byte slot per required signer; all-zero where nobody signed yet. */
  signatures: Uint8Array[]
  message: SolanaMessage
}

/** At most 256 accounts: instruction account indexes are one byte. */
const maxAccounts = 256

/**
 * Decodes a wire transaction (shortvec signature count, the signatures, the message) strictly: every
 * structural rule the runtime's sanitizer applies is checked here, nothing may follow the message, and each
 * failure is -32602 with the field's path under `root`.
 */
export function decodeTransaction(bytes: Uint8Array, root: string): SolanaTransaction {
  const reader = new WireReader(bytes, root)
  const count = reader.shortVec('signatures')
  if (count === 0) reader.fail('a transaction carries at least one signature slot', 'signatures')
  const signatures: Uint8Array[] = []
  for (let index = 0; index < count; index++) {
    signatures.push(reader.take(64, 'signatures', index))
  }
  const message = readMessage(reader, 'message')
  if (message.header.numRequiredSignatures !== count) {
    reader.fail(
      `${count} signature slots for ${message.header.numRequiredSignatures} required signers`,
      'signatures',
    )
  }
  return { signatures, message }
}

/** Decodes a bare serialized message (what `solana_signMessage` must not be tricked into signing). */
export function decodeMessage(bytes: Uint8Array, root: string): SolanaMessage {
  const reader = new WireReader(bytes, root)
  return readMessage(reader, '')
}

function readMessage(reader: WireReader, field: string): SolanaMessage {
  const at = field === '' ? barePaths : messagePaths
  const start = reader.offset
  const first = reader.u8(at.header)
  let version: SolanaMessage['version'] = 'legacy'
  let numRequiredSignatures = first
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) reader.fail(`unsupported message version ${first & 0x7f}`, at.version)
    version = 0
    numRequiredSignatures = reader.u8(at.numRequiredSignatures)
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8(at.numReadonlySignedAccounts),
    numReadonlyUnsignedAccounts: reader.u8(at.numReadonlyUnsignedAccounts),
  }
  const keyCount = reader.shortVec(at.accountKeys)
  if (keyCount > maxAccounts) reader.fail(`${keyCount} account keys, at most ${maxAccounts}`, at.accountKeys)
  const staticAccountKeys: Uint8Array[] = []
  const staticAddresses: string[] = []
  const seen = new Set<string>()
  for (let index = 0; index < keyCount; index++) {
    const key = reader.take(32, at.accountKeys, index)
    const text = keyText(key)
    if (seen.has(text)) reader.fail('duplicate account key', at.accountKeys, index)
    seen.add(text)
    staticAccountKeys.push(key)
    staticAddresses.push(addressOfKey(key, text))
  }
  checkHeader(reader, header, keyCount, at.header)
  const recentBlockhash = reader.take(32, at.recentBlockhash)
  const instructionCount = reader.shortVec(at.instructions)
  const rawInstructions: CompiledInstruction[] = []
  for (let index = 0; index < instructionCount; index++) {
    const programIdIndex = reader.u8(at.instructions, index, 'programIdIndex')
    const accountCount = reader.shortVec(at.instructions, index, 'accounts')
    const accountIndexes: number[] = []
    for (let position = 0; position < accountCount; position++) {
      accountIndexes.push(reader.u8(at.instructions, index, 'accounts', position))
    }
    const dataLength = reader.shortVec(at.instructions, index, 'data')
    const data = reader.take(dataLength, at.instructions, index, 'data')
    rawInstructions.push({ programIdIndex, accountIndexes, data })
  }
  const addressTableLookups: AddressTableLookup[] = []
  if (version === 0) {
    const lookupCount = reader.shortVec(at.addressTableLookups)
    for (let index = 0; index < lookupCount; index++) {
      const accountKey = reader.take(32, at.addressTableLookups, index, 'accountKey')
      const writableIndexes = readIndexList(reader, at.addressTableLookups, index, 'writableIndexes')
      const readonlyIndexes = readIndexList(reader, at.addressTableLookups, index, 'readonlyIndexes')
      if (writableIndexes.length + readonlyIndexes.length === 0) {
        reader.fail('a lookup table entry must load at least one account', at.addressTableLookups, index)
      }
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes })
    }
  }
  if (reader.remaining > 0) reader.fail(`${reader.remaining} bytes after the message`, field)
  const loaded = addressTableLookups.reduce(
    (sum, lookup) => sum + lookup.writableIndexes.length + lookup.readonlyIndexes.length,
    0,
  )
  const total = keyCount + loaded
  if (total > maxAccounts) {
    reader.fail(`${total} accounts with lookup tables, at most ${maxAccounts}`, at.addressTableLookups)
  }
  for (let index = 0; index < rawInstructions.length; index++) {
    const instruction = rawInstructions[index]!
    // The runtime requires program ids among the static keys, and never the fee payer.
    if (instruction.programIdIndex === 0 || instruction.programIdIndex >= keyCount) {
      reader.fail(
        `program id index ${instruction.programIdIndex} is not a static account other than the fee payer (1..${keyCount - 1})`,
        at.instructions,
        index,
        'programIdIndex',
      )
    }
    const { accountIndexes } = instruction
    for (let position = 0; position < accountIndexes.length; position++) {
      const accountIndex = accountIndexes[position]!
      if (accountIndex >= total) {
        reader.fail(
          `account index ${accountIndex} out of range (0..${total - 1})`,
          at.instructions,
          index,
          'accounts',
          position,
        )
      }
    }
  }
  return {
    version,
    header,
    staticAccountKeys,
    staticAddresses,
    recentBlockhash,
    instructions: rawInstructions,
    addressTableLookups,
    bytes: reader.bytes.subarray(start, reader.offset),
  }
}

/** The message's field paths, under `message` (in a transaction) or bare: made once, not per request. */
function messageFieldPaths(field: string) {
  const under = (name: string) => (field === '' ? name : `${field}.${name}`)
  return {
    header: under('header'),
    version: under('version'),
    numRequiredSignatures: under('header.numRequiredSignatures'),
    numReadonlySignedAccounts: under('header.numReadonlySignedAccounts'),
    numReadonlyUnsignedAccounts: under('header.numReadonlyUnsignedAccounts'),
    accountKeys: under('accountKeys'),
    recentBlockhash: under('recentBlockhash'),
    instructions: under('instructions'),
    addressTableLookups: under('addressTableLookups'),
  }
}

const messagePaths = messageFieldPaths('message')
const barePaths = messageFieldPaths('')

function readIndexList(reader: WireReader, field: string, index: number, list: string): number[] {
  const count = reader.shortVec(field, index, list)
  const indexes: number[] = []
  for (let position = 0; position < count; position++) indexes.push(reader.u8(field, index, list, position))
  return indexes
}

function checkHeader(reader: WireReader, header: MessageHeader, keyCount: number, path: string): void {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = header
  if (numRequiredSignatures === 0) reader.fail('a message needs at least one signer (the fee payer)', path)
  if (numRequiredSignatures > keyCount) {
    reader.fail(
      `${numRequiredSignatures} signers but only ${keyCount} account keys`,
      `${path}.numRequiredSignatures`,
    )
  }
  // The fee payer (first signer) is always writable.
  if (numReadonlySignedAccounts >= numRequiredSignatures) {
    reader.fail('the fee payer cannot be read-only', `${path}.numReadonlySignedAccounts`)
  }
  if (numReadonlyUnsignedAccounts > keyCount - numRequiredSignatures) {
    reader.fail('more read-only unsigned accounts than unsigned keys', `${path}.numReadonlyUnsignedAccounts`)
  }
}

/** The wire transaction: the signature count, the signature slots, and the message bytes as received. */
export function encodeTransaction(transaction: SolanaTransaction): Uint8Array {
  const { signatures, message } = transaction
  const count = encodeShortVec(signatures.length)
  let length = count.length + message.bytes.length
  for (const signature of signatures) length += signature.length
  const out = new Uint8Array(length)
  out.set(count)
  let offset = count.length
  for (const signature of signatures) {
    out.set(signature, offset)
    offset += signature.length
  }
  out.set(message.bytes, offset)
  return out
}

/** Whether static account `index` must sign. */
export function isSigner(message: SolanaMessage, index: number): boolean {
  return index < message.header.numRequiredSignatures
}

/** Whether account `index` (static, or loaded through a lookup table) is writable. */
export function isWritable(message: SolanaMessage, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header
  const keyCount = message.staticAccountKeys.length
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts
  if (index < keyCount) return index < keyCount - numReadonlyUnsignedAccounts
  const writableLoaded = message.addressTableLookups.reduce(
    (sum, lookup) => sum + lookup.writableIndexes.length,
    0,
  )
  return index < keyCount + writableLoaded
}

/** Where a loaded account comes from: the lookup table and the index within it. */
export type LoadedAccountRef = { table: Uint8Array; index: number; writable: boolean }

/**
 * The accounts of a message in index order: a static key, or a reference into a lookup table (resolved by the
 * caller when a provider can read the table). Writable loaded accounts precede read-only ones, table by table.
 */
export function accountRefs(message: SolanaMessage): Array<Uint8Array | LoadedAccountRef> {
  const refs: Array<Uint8Array | LoadedAccountRef> = [...message.staticAccountKeys]
  for (const writable of [true, false]) {
    for (const lookup of message.addressTableLookups) {
      for (const index of writable ? lookup.writableIndexes : lookup.readonlyIndexes) {
        refs.push({ table: lookup.accountKey, index, writable })
      }
    }
  }
  return refs
}
