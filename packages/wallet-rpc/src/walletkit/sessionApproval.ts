import type { ProposalTypes, SessionTypes } from '@walletconnect/types'
import {
  type BuildApprovedNamespacesParams,
  buildApprovedNamespaces,
  getSdkError,
  normalizeNamespaces,
} from '@walletconnect/utils'
import type { SdkErrorReason, WalletRpcLike } from './types.js'

/** What `approveSession` needs, and which chains to announce once the session exists. */
export type SessionApproval = {
  namespaces: SessionTypes.Namespaces
  sessionProperties: Record<string, string>
  /** Every approved chain, for `wallet.announceSession()`. */
  chainIds: string[]
}

/** The proposal asks for something this wallet cannot serve; `reason` is what `rejectSession` sends. */
export class SessionProposalRefusedError extends Error {
  override name = 'SessionProposalRefusedError'
  readonly reason: SdkErrorReason
  constructor(reason: SdkErrorReason) {
    super(reason.message)
    this.reason = reason
  }
}

// The SDK's own account rule (`isValidAccountId`: exactly `namespace:reference:address`), so no colon;
// stricter CAIP-10 would drop TON's friendly addresses, which contain `_`.
const accountAddressPattern = /^[^:\s]{1,128}$/

type SupportedNamespaces = BuildApprovedNamespacesParams['supportedNamespaces']
type ProposalNamespaces = ProposalTypes.RequiredNamespaces

/** A proposal is dapp input: read its maps by own keys only (`__proto__`, `constructor`). */
function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

/**
 * The approved namespaces for a session proposal, built with WalletConnect's own
 * `buildApprovedNamespaces`: for every configured chain the dapp asked for (required or optional), the
 * wallet's CAIP-10 accounts (bip122: only the account id, the first external address), the methods the
 * namespace serves and its events, each intersected with what the dapp asked for; plus the session
 * properties of the approved namespaces.
 *
 * Throws `SessionProposalRefusedError` (5100 chains, 5101 methods, 5102 events, 5104 malformed key) when a
 * required namespace cannot be met or no requested chain is configured. An account the SDK would refuse
 * (one containing `:`) is left out and reported to `onError`, so approval cannot fail on it.
 */
export async function buildSessionApproval(
  wallet: Pick<WalletRpcLike, 'supported' | 'accounts' | 'sessionProperties'>,
  proposal: ProposalTypes.Struct,
  onError: (error: unknown) => void = () => {},
): Promise<SessionApproval> {
  // Newer dapp SDKs send only optional namespaces; older payloads may omit either map.
  const requiredNamespaces = cleanNamespaces(proposal.requiredNamespaces, 'required')
  const optionalNamespaces = cleanNamespaces(proposal.optionalNamespaces, 'optional')
  const required = normalizeNamespaces(requiredNamespaces)
  const optional = normalizeNamespaces(optionalNamespaces)
  const askedForNothing = Object.keys(required).length === 0 && Object.keys(optional).length === 0
  const asked = (namespace: string, chainId: string): boolean =>
    askedForNothing ||
    own(required, namespace)?.chains?.includes(chainId) === true ||
    own(optional, namespace)?.chains?.includes(chainId) === true

  const supported = wallet.supported()
  const supportedNamespaces: SupportedNamespaces = {}
  for (const namespace of supported) {
    const chains: string[] = []
    const accounts: string[] = []
    for (const chainId of namespace.chains) {
      if (!asked(namespace.name, chainId)) continue
      const ids = await accountIdsOf(wallet, chainId, onError)
      // buildApprovedNamespaces throws for a supported chain without an account; leave such chains out.
      if (ids.length === 0) continue
      chains.push(chainId)
      accounts.push(...ids.map((id) => `${chainId}:${id}`))
    }
    if (chains.length === 0) continue
    supportedNamespaces[namespace.name] = {
      chains,
      methods: [...namespace.methods],
      events: [...namespace.events],
      accounts,
    }
  }

  refuseUnmetRequirements(required, supportedNamespaces)

  let namespaces: SessionTypes.Namespaces
  try {
    namespaces = buildApprovedNamespaces({
      proposal: { ...proposal, requiredNamespaces, optionalNamespaces },
      supportedNamespaces,
    })
  } catch (error) {
    // Our own check above mirrors the SDK's; reaching here means the proposal is malformed.
    onError(error)
    throw new SessionProposalRefusedError(getSdkError('UNSUPPORTED_CHAINS'))
  }
  if (Object.keys(namespaces).length === 0) {
    throw new SessionProposalRefusedError(
      getSdkError('UNSUPPORTED_CHAINS', 'None of the requested chains is configured in this wallet.'),
    )
  }

  const chainIds = [
    ...new Set(
      Object.values(namespaces).flatMap(
        (namespace) => namespace.chains ?? namespace.accounts.map((account) => chainOfAccount(account)),
      ),
    ),
  ]
  const sessionProperties = await propertiesFor(
    wallet,
    new Set(supported.map((namespace) => namespace.name)),
    new Set(Object.keys(namespaces)),
    onError,
  )
  return { namespaces, sessionProperties, chainIds }
}

// CAIP-2 namespace, optionally with a reference (`eip155`, `eip155:1`).
const namespaceKeyPattern = /^[-a-z0-9]{3,8}(:[-_a-zA-Z0-9]{1,32})?$/

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : []

/**
 * The proposal's namespaces as plain data, before any SDK helper indexes objects with them: the SDK's
 * `buildApprovedNamespaces` reads `supportedNamespaces[key]` for every proposed key, so a key such as
 * `constructor` would reach `Object.prototype`. A malformed required key refuses the proposal (5104); a
 * malformed optional one is ignored.
 */
function cleanNamespaces(value: unknown, kind: 'required' | 'optional'): ProposalNamespaces {
  const clean: ProposalNamespaces = {}
  if (!isRecord(value)) return clean
  for (const [key, namespace] of Object.entries(value)) {
    if (!namespaceKeyPattern.test(key) || !isRecord(namespace)) {
      if (kind === 'optional') continue
      throw new SessionProposalRefusedError(getSdkError('UNSUPPORTED_NAMESPACE_KEY', key))
    }
    clean[key] = {
      ...(namespace.chains === undefined ? {} : { chains: strings(namespace.chains) }),
      methods: strings(namespace.methods),
      events: strings(namespace.events),
    }
  }
  return clean
}

async function accountIdsOf(
  wallet: Pick<WalletRpcLike, 'accounts'>,
  chainId: string,
  onError: (error: unknown) => void,
): Promise<string[]> {
  try {
    const ids = await wallet.accounts(chainId)
    return ids.filter((id) => {
      if (typeof id === 'string' && accountAddressPattern.test(id)) return true
      onError(new Error(`left out an account on ${chainId}: not a CAIP-10 address (one without ":")`))
      return false
    })
  } catch (error) {
    onError(error)
    return []
  }
}

/** Same test as the SDK's `isConformingNamespaces`, done first so the dapp learns which part failed. */
function refuseUnmetRequirements(required: ProposalNamespaces, supported: SupportedNamespaces): void {
  for (const [name, requirement] of Object.entries(required)) {
    const offer = own(supported, name)
    const missingChains = (requirement.chains ?? []).filter((chain) => !offer?.chains.includes(chain))
    if (offer === undefined || missingChains.length > 0) {
      throw new SessionProposalRefusedError(
        getSdkError('UNSUPPORTED_CHAINS', (missingChains.length > 0 ? missingChains : [name]).join(', ')),
      )
    }
    const missingMethods = requirement.methods.filter((method) => !offer.methods.includes(method))
    if (missingMethods.length > 0) {
      throw new SessionProposalRefusedError(getSdkError('UNSUPPORTED_METHODS', missingMethods.join(', ')))
    }
    const missingEvents = requirement.events.filter((event) => !offer.events.includes(event))
    if (missingEvents.length > 0) {
      throw new SessionProposalRefusedError(getSdkError('UNSUPPORTED_EVENTS', missingEvents.join(', ')))
    }
  }
}

/**
 * The wallet's session properties, minus those of configured namespaces the session does not include:
 * an eip155-only dapp has no business learning the wallet's TON public key.
 */
async function propertiesFor(
  wallet: Pick<WalletRpcLike, 'sessionProperties'>,
  configured: ReadonlySet<string>,
  approved: ReadonlySet<string>,
  onError: (error: unknown) => void,
): Promise<Record<string, string>> {
  let properties: Record<string, string>
  try {
    properties = await wallet.sessionProperties()
  } catch (error) {
    onError(error)
    return {}
  }
  const kept: Record<string, string> = {}
  for (const [key, value] of Object.entries(properties)) {
    const owner = key.split('_')[0] ?? ''
    if (typeof value === 'string' && (!configured.has(owner) || approved.has(owner))) kept[key] = value
  }
  return kept
}

function chainOfAccount(account: string): string {
  return account.split(':').slice(0, 2).join(':')
}
