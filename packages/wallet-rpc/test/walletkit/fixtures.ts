import type { WalletKitTypes } from '@reown/walletkit'
import type { ProposalTypes, Verify } from '@walletconnect/types'

/**
 * Payloads as WalletKit delivers them, typed with the SDK's own event types. Shapes and values are taken
 * from the SDK documentation:
 * - namespaces: WalletConnect Sign spec, `docs/specs/clients/sign/namespaces.md`
 *   (WalletConnect/walletconnect-specs), and the WalletKit web usage page
 *   (WalletConnectFoundation/docs `wallet-sdk/web/usage.mdx`: the `buildApprovedNamespaces` example with
 *   account `0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb` on eip155:1 and eip155:137);
 * - verifyContext: `wallet-sdk/web/verify.mdx` (validation VALID | INVALID | UNKNOWN, `isScam`);
 * - bip122 chain ids, methods and the `bip122_addressesChanged` event: `wallet-sdk/chain-support/bitcoin.mdx`;
 * - the request envelope `{ id, topic, params: { request: { method, params, expiryTimestamp? }, chainId } }`:
 *   `SignClientTypes.EventArguments['session_request']` in @walletconnect/types.
 * MIT/Apache-licensed documentation; values are public examples, not secrets.
 */

export const NOW_SECONDS = 1_700_000_000
export const BITCOIN_MAINNET = 'bip122:000000000019d6689c085ae165831e93'
export const BITCOIN_TESTNET = 'bip122:000000000933ea01ad0ee984209779ba'
export const ETHEREUM = 'eip155:1'
export const POLYGON = 'eip155:137'
export const ARBITRUM = 'eip155:42161'
export const TON_MAINNET = 'ton:-239'

/** BIP-84 test vector: m/84'/0'/0'/0/0 of "abandon ×11 about". */
export const BITCOIN_ACCOUNT = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
export const ETHEREUM_ACCOUNT = '0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb'
// Friendly (base64url) form, as TON sessions carry it; the fake namespace does not parse it.
export const TON_ACCOUNT = 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0Xg_GG'

export const DAPP_ORIGIN = 'https://react-app.walletconnect.com'

export const verified = (
  validation: Verify.Context['verified']['validation'],
  extra: { isScam?: boolean; origin?: string } = {},
): Verify.Context => ({
  verified: {
    origin: extra.origin ?? DAPP_ORIGIN,
    validation,
    verifyUrl: 'https://verify.walletconnect.org',
    ...(extra.isScam === undefined ? {} : { isScam: extra.isScam }),
  },
})

/** A dapp on AppKit asking (optionally, as current dapp SDKs do) for Bitcoin and two EVM chains plus Arbitrum. */
export const appKitNamespaces: ProposalTypes.OptionalNamespaces = {
  eip155: {
    chains: [ETHEREUM, POLYGON, ARBITRUM],
    methods: ['eth_sendTransaction', 'personal_sign', 'eth_signTypedData_v4'],
    events: ['chainChanged', 'accountsChanged'],
  },
  bip122: {
    chains: [BITCOIN_MAINNET],
    methods: ['sendTransfer', 'getAccountAddresses', 'signMessage', 'signPsbt'],
    events: ['bip122_addressesChanged'],
  },
}

/** The Sign spec's "Example of a Proposal Namespace" (requires eip155:10, solana and polkadot). */
export const specExampleNamespaces: {
  requiredNamespaces: ProposalTypes.RequiredNamespaces
  optionalNamespaces: ProposalTypes.OptionalNamespaces
} = {
  requiredNamespaces: {
    eip155: {
      methods: [
        'eth_sendTransaction',
        'eth_signTransaction',
        'eth_sign',
        'personal_sign',
        'eth_signTypedData',
      ],
      chains: ['eip155:1', 'eip155:10'],
      events: ['chainChanged', 'accountsChanged'],
    },
    solana: {
      methods: ['solana_signTransaction', 'solana_signMessage'],
      chains: ['solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ'],
      events: [],
    },
    polkadot: {
      methods: ['polkadot_signTransaction', 'polkadot_signMessage'],
      chains: ['polkadot:91b171bb158e2d3848fa23a9f1c25182'],
      events: [],
    },
  },
  optionalNamespaces: {
    'eip155:42161': {
      methods: ['eth_sendTransaction', 'eth_signTransaction', 'personal_sign'],
      events: ['accountsChanged', 'chainChanged'],
    },
  },
}

let nextId = 1_700_000_000_000_100

export function proposalEvent(
  namespaces: {
    requiredNamespaces?: ProposalTypes.RequiredNamespaces
    optionalNamespaces?: ProposalTypes.OptionalNamespaces
  },
  verifyContext: Verify.Context = verified('VALID'),
  expiryTimestamp = NOW_SECONDS + 300,
): WalletKitTypes.SessionProposal {
  nextId += 1
  return {
    id: nextId,
    params: {
      id: nextId,
      expiryTimestamp,
      relays: [{ protocol: 'irn' }],
      proposer: {
        publicKey: 'a'.repeat(64),
        metadata: {
          name: 'React App',
          description: 'React App for WalletConnect',
          url: DAPP_ORIGIN,
          icons: ['https://avatars.githubusercontent.com/u/37784886'],
        },
      },
      requiredNamespaces: namespaces.requiredNamespaces ?? {},
      optionalNamespaces: namespaces.optionalNamespaces ?? {},
      pairingTopic: 'b'.repeat(64),
    },
    verifyContext,
  }
}

export function requestEvent(
  topic: string,
  chainId: string,
  request: { method: string; params: unknown; expiryTimestamp?: number },
  verifyContext: Verify.Context = verified('VALID'),
): WalletKitTypes.SessionRequest {
  nextId += 1
  return { id: nextId, topic, params: { request, chainId }, verifyContext }
}
