import type { Address, TypedDataDefinition } from 'viem'
import type { ReviewWarning } from '../core/review.js'
import type { ChainAccess } from './provider.js'
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
