import { InvalidParamsError, PolicyRefusedError } from '../core/errors.js'
import { isTestnet } from './chains.js'
import { Address } from './tonCore.js'

export type Destination = { address: Address; bounceable: boolean; testOnly: boolean }

/**
 * A message destination: TEP-2 user-friendly form only (TON Connect: "Wallets MUST reject addresses
 * provided in raw format"), because only that form carries the bounce flag the dapp intends. A test-only
 * address is refused on mainnet (TEP-2 wallet rules).
 */
export function parseDestination(text: string, chainId: string, path: string): Destination {
  if (!Address.isFriendly(text)) {
    throw new InvalidParamsError(
      'address must be a user-friendly (TEP-2) address; raw addresses carry no bounce flag',
      {
        path,
      },
    )
  }
  let parsed: ReturnType<typeof Address.parseFriendly>
  try {
    parsed = Address.parseFriendly(text)
  } catch {
    throw new InvalidParamsError('address has a bad checksum or tag', { path })
  }
  if (parsed.address.workChain !== 0 && parsed.address.workChain !== -1) {
    throw new InvalidParamsError('address workchain must be 0 or -1', { path })
  }
  if (parsed.isTestOnly && !isTestnet(chainId)) {
    throw new PolicyRefusedError(`${path} is a testnet-only address and this request is for mainnet`, {
      rule: 'ton.testnet_address_on_mainnet',
    })
  }
  return { address: parsed.address, bounceable: parsed.isBounceable, testOnly: parsed.isTestOnly }
}

/** `from`: raw (`0:<hex>`, what @tonconnect/sdk sends) or user-friendly. */
export function parseAnyAddress(text: string, path: string): Address {
  try {
    return Address.parse(text)
  } catch {
    throw new InvalidParamsError('not a TON address', { path })
  }
}

/** How the review shows an address: user-friendly, bounceable or not, test flag on testnet. */
export function friendly(address: Address, chainId: string, bounceable: boolean): string {
  return address.toString({ bounceable, testOnly: isTestnet(chainId), urlSafe: true })
}

/**
 * The account an address names, whatever its form (raw, or user-friendly with any bounce and test flags): how a
 * third party's description of a payment is compared with what a request moves (`Namespace.addressKey`). Text that
 * is not an address stays as it is, so it matches nothing but itself.
 */
export function addressKey(text: string): string {
  try {
    return Address.parse(text).toRawString()
  } catch {
    return text
  }
}
