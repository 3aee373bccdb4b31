import type { Address, TypedDataDefinition } from 'viem'
import type { ReviewWarning } from '../core/review.js'
import type { ChainAccess } from './provider.js'
import { isUnlimited } from './transaction/review.js'
import { isAddress } from './viemUtils.js'

/**
 * Signature risks of typed data that need the signing account or the chain, beside `permitWarnings`:
 *
 * - `typed_data.self_verifying_contract` (`danger`): `domain.verifyingContract` is the signing account
 *   itself. With EIP-7702 an account runs delegate code, and a signature "for" its own address can authorize
 *   that code to act (MetaMask refuses these, MetaMask/core #5470).
 * - `permit.spender_not_contract` (`caution`): a permit (ERC-2612 or Permit2) whose spender has no code:
 *   an ordinary account can move the tokens at will (Rabby flags an EOA spender). Read only when the chain
 *   has a provider; a failed read leaves the warning out.
 * - `typed_data.transfer_authorization` (`caution`): an EIP-3009 `TransferWithAuthorization` or
 *   `ReceiveWithAuthorization` (USDC and others): the signature itself moves the tokens, no transaction of
 *   the user's needed, as a Permit grants an allowance. Names token, amount, recipient and validity.
 */
export async function typedDataRiskWarnings(
  definition: TypedDataDefinition,
  account: Address,
  access: ChainAccess | undefined,
): Promise<ReviewWarning[]> {
  const warnings: ReviewWarning[] = []
  const domain = (definition.domain ?? {}) as Record<string, unknown>
  const verifyingContract = domain.verifyingContract
  if (typeof verifyingContract === 'string' && verifyingContract.toLowerCase() === account.toLowerCase()) {
    warnings.push({
      code: 'typed_data.self_verifying_contract',
      severity: 'danger',
      message: `The message names your own account ${account} as the contract that verifies it: with EIP-7702 delegation, such a signature can authorize code running on your account.`,
    })
  }
  const transfer = transferAuthorizationWarning(definition, account)
  if (transfer !== undefined) warnings.push(transfer)
  const spender = (definition.message as Record<string, unknown>).spender
  const isPermit = definition.primaryType.startsWith('Permit')
  if (
    isPermit &&
    access !== undefined &&
    typeof spender === 'string' &&
    isAddress(spender, { strict: false })
  ) {
    const code = await access.code(spender as Address).catch(() => undefined)
    if (code === '0x') {
      warnings.push({
        code: 'permit.spender_not_contract',
        severity: 'caution',
        message: `The spender ${spender} is not a contract: whoever holds its key can move the permitted tokens at any time.`,
      })
    }
  }
  return warnings
}

/** EIP-3009's two signed-transfer types: anyone may submit the first, only the recipient the second. */
const transferAuthorizations: Readonly<Record<string, string>> = {
  TransferWithAuthorization: 'anyone holding this signature can submit it',
  ReceiveWithAuthorization: 'only the recipient can submit it',
}

function transferAuthorizationWarning(
  definition: TypedDataDefinition,
  account: Address,
): ReviewWarning | undefined {
  if (!Object.hasOwn(transferAuthorizations, definition.primaryType)) return undefined
  const message = definition.message as Record<string, unknown>
  const domain = (definition.domain ?? {}) as Record<string, unknown>
  const token = typeof domain.verifyingContract === 'string' ? domain.verifyingContract : 'an unnamed token'
  const field = (name: string) =>
    typeof message[name] === 'string' ||
    typeof message[name] === 'number' ||
    typeof message[name] === 'bigint'
      ? String(message[name])
      : '?'
  let amount = field('value')
  try {
    if (isUnlimited(BigInt(amount))) amount = `an unlimited amount (${amount})`
    else amount = `${amount} base units`
  } catch {
    // Shown as written: hashing already refused a value that is not a uint256.
  }
  const from = field('from')
  const owner =
    from.toLowerCase() === account.toLowerCase() ? 'your' : `${from}'s (not the signing account's)`
  return {
    code: 'typed_data.transfer_authorization',
    severity: 'caution',
    message: `EIP-3009 ${definition.primaryType}: this signature moves ${amount} of ${owner} tokens of ${token} to ${field('to')}, valid from ${unixTime(field('validAfter'))} until ${unixTime(field('validBefore'))}; ${transferAuthorizations[definition.primaryType]}, no transaction of yours needed.`,
  }
}

function unixTime(value: string): string {
  const seconds = Number(value)
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds * 1000 > 8.64e15) return value
  return new Date(seconds * 1000).toISOString()
}
