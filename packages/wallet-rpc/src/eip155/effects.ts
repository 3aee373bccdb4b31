import type { Address, Hex, TypedDataDefinition } from 'viem'
import type { AssetEffect } from '../core/expectation.js'

/**
 * What an eip155 request moves, decoded from the exact transaction or typed data the method signs (core
 * `AssetEffect`, compared with a third party's description of the payment). Decoded: a native transfer, ERC-20
 * `transfer`, `transferFrom` and `approve` (exact calldata only); EIP-3009 `TransferWithAuthorization` and
 * `ReceiveWithAuthorization`, EIP-2612 `Permit` (and DAI's `allowed` variant), Permit2's `PermitSingle`,
 * `PermitBatch`, `PermitTransferFrom`, `PermitBatchTransferFrom` and their witness forms, each only when its types
 * are the standard's own (other types hash to another struct, which the token would not accept). Permit2's forms
 * and `transferFrom` draw on an ERC-20 allowance (`AssetEffect.via`: Permit2, the sender). Anything
 * else (another call, a contract deployment, a call to the account itself, other typed data, a message) is
 * undefined: the wallet cannot tell what it moves.
 */

/** Permit2's address, the same on every chain it is deployed on (Uniswap's deterministic deployment). */
export const permit2Address = '0x000000000022d473030f116ddee9f6b43ac78ba3'

const selectors = { transfer: 'a9059cbb', approve: '095ea7b3', transferFrom: '23b872dd' } as const

/** The effects of a transaction from `from` on `chainId` (CAIP-2), or undefined when its call is not decoded. */
export function transactionEffects(
  chainId: string,
  transaction: { from: Address; to: Address | undefined; value: bigint; data: Hex },
): AssetEffect[] | undefined {
  const { from, to, value, data } = transaction
  // A deployment runs code the wallet does not read; a call to the account itself runs its delegate's code.
  if (to === undefined || to.toLowerCase() === from.toLowerCase()) return undefined
  const effects: AssetEffect[] = []
  if (value > 0n) {
    effects.push({
      chainId,
      account: from,
      asset: 'native',
      amount: value,
      recipient: to,
      kind: 'transfer',
      form: 'native transfer',
    })
  }
  if (data === '0x') return effects
  const call = tokenCall(data.slice(2).toLowerCase())
  if (call === undefined) return undefined
  const base = { chainId, asset: to, amount: call.amount, recipient: call.recipient }
  if (call.name === 'approve') {
    effects.push({ ...base, account: from, kind: 'allowance', form: 'ERC-20 approve' })
  } else {
    const form = `ERC-20 ${call.name}`
    // transferFrom moves `owner`'s tokens through the allowance `owner` gave the sender: the owner's assets move.
    if (call.owner === undefined) effects.push({ ...base, account: from, kind: 'transfer', form })
    else effects.push({ ...base, account: call.owner, kind: 'transfer', form, via: from })
  }
  return effects
}

type TokenCall = { name: keyof typeof selectors; owner?: string; recipient: string; amount: bigint }

/** An ERC-20 call whose calldata is exactly its selector and words, addresses zero-padded; else undefined. */
function tokenCall(hex: string): TokenCall | undefined {
  const selector = hex.slice(0, 8)
  const words = hex.slice(8)
  const word = (index: number) => words.slice(index * 64, index * 64 + 64)
  const address = (index: number) =>
    /^0{24}[0-9a-f]{40}$/.test(word(index)) ? `0x${word(index).slice(24)}` : undefined
  const amount = (index: number) => BigInt(`0x${word(index)}`)
  if (selector === selectors.transfer || selector === selectors.approve) {
    const recipient = address(0)
    if (words.length !== 128 || recipient === undefined) return undefined
    return { name: selector === selectors.transfer ? 'transfer' : 'approve', recipient, amount: amount(1) }
  }
  if (selector === selectors.transferFrom) {
    const owner = address(0)
    const recipient = address(1)
    if (words.length !== 192 || owner === undefined || recipient === undefined) return undefined
    return { name: 'transferFrom', owner, recipient, amount: amount(2) }
  }
  return undefined
}

type Field = { name: string; type: string }

const fields = (spec: string): Field[] =>
  spec.split(',').map((entry) => {
    const [type, name] = entry.trim().split(' ') as [string, string]
    return { name, type }
  })

const authorization = fields(
  'address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce',
)
const standardTypes: Record<string, Field[]> = {
  TransferWithAuthorization: authorization,
  ReceiveWithAuthorization: authorization,
  Permit: fields('address owner, address spender, uint256 value, uint256 nonce, uint256 deadline'),
  PermitDetails: fields('address token, uint160 amount, uint48 expiration, uint48 nonce'),
  PermitSingle: fields('PermitDetails details, address spender, uint256 sigDeadline'),
  PermitBatch: fields('PermitDetails[] details, address spender, uint256 sigDeadline'),
  TokenPermissions: fields('address token, uint256 amount'),
  PermitTransferFrom: fields('TokenPermissions permitted, address spender, uint256 nonce, uint256 deadline'),
  PermitBatchTransferFrom: fields(
    'TokenPermissions[] permitted, address spender, uint256 nonce, uint256 deadline',
  ),
}
/** DAI's permit (and its clones): `allowed` grants everything or revokes. */
const daiPermit = fields('address holder, address spender, uint256 nonce, uint256 expiry, bool allowed')

/** The witness forms: the transfer struct's fields, then `witness` of the integrator's own type. */
const witnessOf: Record<string, string> = {
  PermitWitnessTransferFrom: 'PermitTransferFrom',
  PermitBatchWitnessTransferFrom: 'PermitBatchTransferFrom',
}

const maxUint256 = 2n ** 256n - 1n

/**
 * The effects of typed data `signer` signs on `chainId` (CAIP-2; checkTypedData already refused a domain of
 * another chain), or undefined when it is not one of the decoded forms, its domain commits to no chain or no
 * verifying contract, or it moves another account's tokens.
 */
export function typedDataEffects(
  chainId: string,
  definition: TypedDataDefinition,
  signer: Address,
): AssetEffect[] | undefined {
  const types = definition.types as Record<string, readonly Field[] | undefined>
  const domain = (definition.domain ?? {}) as Record<string, unknown>
  const message = definition.message as Record<string, unknown>
  const declared = (types.EIP712Domain ?? []).map((field) => field.name)
  const contract = domain.verifyingContract
  // Without a chain in the domain the signature holds on every chain; without a contract, for any contract.
  if (!declared.includes('chainId') || !declared.includes('verifyingContract')) return undefined
  if (typeof contract !== 'string') return undefined
  const primary = definition.primaryType
  const is = (name: string) => primary === name && sameFields(types[name], standardTypes[name])
  const own = (account: unknown) => typeof account === 'string' && sameAddress(account, signer)
  const effect = (
    asset: string,
    amount: unknown,
    recipient: unknown,
    kind: AssetEffect['kind'],
    form: string,
  ) => {
    const units = uint(amount)
    if (units === undefined || typeof recipient !== 'string') return undefined
    return { chainId, account: signer, asset, amount: units, recipient, kind, form } satisfies AssetEffect
  }
  if (is('TransferWithAuthorization') || is('ReceiveWithAuthorization')) {
    if (!own(message.from)) return undefined
    return list([effect(contract, message.value, message.to, 'transfer', `EIP-3009 ${primary}`)])
  }
  if (is('Permit')) {
    if (!own(message.owner)) return undefined
    return list([effect(contract, message.value, message.spender, 'allowance', 'EIP-2612 Permit')])
  }
  if (primary === 'Permit' && sameFields(types.Permit, daiPermit)) {
    if (!own(message.holder) || typeof message.allowed !== 'boolean') return undefined
    const amount = message.allowed ? maxUint256 : 0n
    return list([effect(contract, amount, message.spender, 'allowance', 'DAI-style permit')])
  }
  const transferStruct = witnessOf[primary] ?? primary
  const permit2 =
    transferStruct === primary ? is(primary) : witnessFields(types[primary], standardTypes[transferStruct])
  if (
    !permit2 ||
    !['PermitSingle', 'PermitBatch', 'PermitTransferFrom', 'PermitBatchTransferFrom'].includes(transferStruct)
  )
    return undefined
  // Permit2's structs mean what they say only to Permit2 itself.
  if (!sameAddress(contract, permit2Address)) return undefined
  const single = transferStruct === 'PermitSingle' || transferStruct === 'PermitTransferFrom'
  const allowance = transferStruct === 'PermitSingle' || transferStruct === 'PermitBatch'
  const component = allowance ? 'PermitDetails' : 'TokenPermissions'
  if (!sameFields(types[component], standardTypes[component])) return undefined
  const entries = single
    ? [message[allowance ? 'details' : 'permitted']]
    : message[allowance ? 'details' : 'permitted']
  if (!Array.isArray(entries)) return undefined
  return list(
    entries.map((entry) => {
      if (typeof entry !== 'object' || entry === null) return undefined
      const { token, amount } = entry as Record<string, unknown>
      if (typeof token !== 'string') return undefined
      const permitted = effect(token, amount, message.spender, 'allowance', `Permit2 ${primary}`)
      // Permit2 moves what the account's ERC-20 allowance to Permit2 covers, and no more.
      return permitted === undefined ? undefined : { ...permitted, via: contract }
    }),
  )
}

/** All decoded, or undefined when one is not. */
function list(effects: Array<AssetEffect | undefined>): AssetEffect[] | undefined {
  return effects.every((effect) => effect !== undefined) ? (effects as AssetEffect[]) : undefined
}

function sameFields(actual: readonly Field[] | undefined, expected: readonly Field[] | undefined): boolean {
  return (
    actual !== undefined &&
    expected !== undefined &&
    actual.length === expected.length &&
    actual.every(
      (field, index) => field.name === expected[index]!.name && field.type === expected[index]!.type,
    )
  )
}

/** A witness struct: the transfer struct's fields, then one `witness` field of any type. */
function witnessFields(actual: readonly Field[] | undefined, base: readonly Field[] | undefined): boolean {
  if (actual === undefined || base === undefined || actual.length !== base.length + 1) return false
  return sameFields(actual.slice(0, base.length), base) && actual[base.length]!.name === 'witness'
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** A uint as typed data spells it (a safe integer, a decimal or 0x string; already range-checked by the hash). */
function uint(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n ? value : undefined
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
  if (typeof value === 'string' && /^(?:[0-9]{1,78}|0x[0-9a-fA-F]{1,64})$/.test(value)) return BigInt(value)
  return undefined
}
