import type { Chain } from 'viem'
import * as viemChains from 'viem/chains'
import { BIP122_REGTEST, bip122Chains } from 'wallet-rpc/bip122'
import type { ExplorerChain } from 'wallet-rpc/explorer'
import { clusterName, solanaChains, solanaLocalnet, solanaMainnet } from 'wallet-rpc/solana'
import { isTestnet as isTonTestnet, tonChains } from 'wallet-rpc/ton'

/** A chain of the table behind `/v3/chains`; only `approved` ones are served. */
export type ChainRecord = ExplorerChain & { approved: boolean }

const loopbackRpc = /^https?:\/\/(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\])(:|\/|$)/

/**
 * Every chain the library knows: viem's chain list for eip155, the bip122, ton and solana CAIP-2 ids of the
 * namespaces. `testnet` is what the source says (viem's `testnet` flag; bip122 testnet/regtest, `ton:-3`, the
 * Solana devnet/testnet). `approved` is false for local development chains (viem entries whose RPC is a
 * loopback node, such as anvil's 31337; bip122 regtest; `solana:localnet`, which is not even a registered
 * CAIP-2 id): nobody's registry lists them.
 */
export function knownChains(): ChainRecord[] {
  return [...eip155Chains(), ...bip122Records(), ...tonRecords(), ...solanaRecords()]
}

/**
 * viem lists some ids more than once (renamed chains, local nodes reusing an id). One record per id: a public
 * network wins over a local node, then a mainnet over a testnet (ids reused by retired testnets), then the
 * first listed.
 */
function eip155Chains(): ChainRecord[] {
  const byId = new Map<number, { chain: Chain; local: boolean }>()
  for (const value of Object.values(viemChains) as unknown[]) {
    if (!isChain(value)) continue
    const local = (value.rpcUrls.default?.http ?? []).some((url) => loopbackRpc.test(url))
    const held = byId.get(value.id)
    if (held === undefined || rank(value, local) < rank(held.chain, held.local)) {
      byId.set(value.id, { chain: value, local })
    }
  }
  return [...byId.values()]
    .sort((a, b) => a.chain.id - b.chain.id)
    .map(({ chain, local }) => ({
      id: `eip155:${chain.id}`,
      name: chain.name,
      namespace: 'eip155',
      testnet: chain.testnet === true,
      approved: !local,
    }))
}

const rank = (chain: Chain, local: boolean): number => (local ? 2 : 0) + (chain.testnet === true ? 1 : 0)

function isChain(value: unknown): value is Chain {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Chain).id === 'number' &&
    typeof (value as Chain).name === 'string' &&
    typeof (value as Chain).rpcUrls === 'object'
  )
}

function bip122Records(): ChainRecord[] {
  return Object.values(bip122Chains).map((chain) => ({
    id: chain.chainId,
    name: `Bitcoin ${chain.name}`,
    namespace: 'bip122',
    testnet: chain.name !== 'mainnet',
    approved: chain.chainId !== BIP122_REGTEST,
  }))
}

function tonRecords(): ChainRecord[] {
  return tonChains.map((id) => ({
    id,
    name: isTonTestnet(id) ? 'TON testnet' : 'TON mainnet',
    namespace: 'ton',
    testnet: isTonTestnet(id),
    approved: true,
  }))
}

function solanaRecords(): ChainRecord[] {
  return solanaChains.map((id) => ({
    id,
    name: clusterName(id),
    namespace: 'solana',
    testnet: id !== solanaMainnet,
    approved: id !== solanaLocalnet,
  }))
}
