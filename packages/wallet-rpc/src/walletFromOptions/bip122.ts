import {
  BIP122_MAINNET,
  BIP122_REGTEST,
  BIP122_TESTNET,
  bip122,
  esplora,
  hdKeys,
  ordServer,
} from '../bip122/index.js'
import type { Bip122ChainOptions } from '../bip122/namespace.js'
import type { Namespace } from '../core/namespace.js'
import { UsageError, type WalletCliOptions } from './options.js'

/**
 * The bip122 namespace the CLI builds from its options, or undefined when no mnemonic is given.
 *
 * - Keys: `--mnemonic-file F` (or `WALLET_RPC_MNEMONIC`), BIP-39; `--account N` picks the account index of
 *   every path `m/{44,49,84,86}'/{0|1}'/N'/…` (coin type 1 off mainnet).
 * - Chains: mainnet, testnet and regtest are always served (signMessage and getAccountAddresses work without a
 *   provider; getAccountAddresses then lists the first external address and the unused minimum).
 * - Providers: `--esplora CHAIN=URL` per chain, e.g.
 *   `--esplora bip122:000000000019d6689c085ae165831e93=https://mempool.space/api`
 *   `--esplora bip122:0f9188f13cb7b2c71f2a335e3a4fc328=http://127.0.0.1:3002`.
 *   A chain without one answers sending methods with a clear -32603 provider error.
 * - Assets: `--ord CHAIN=URL` per chain, an ord server's JSON API (`ord server`, or its `--http-port` behind a
 *   proxy): sendTransfer then never spends coins carrying inscriptions, runes or rare sats (nor ones the
 *   index does not know), and signPsbt's review says where they go.
 */
export async function wireBip122(options: WalletCliOptions): Promise<Namespace | undefined> {
  if (options.mnemonic === undefined) return undefined
  const chains: Record<string, Bip122ChainOptions> = {
    [BIP122_MAINNET]: {},
    [BIP122_TESTNET]: {},
    [BIP122_REGTEST]: {},
  }
  for (const [chainId, url] of options.esplora) {
    if (!Object.hasOwn(chains, chainId)) {
      throw new UsageError(
        `--esplora: ${chainId} is not a bip122 chain this wallet serves (mainnet, testnet, regtest)`,
      )
    }
    chains[chainId] = { provider: esplora(url) }
  }
  for (const [chainId, url] of options.ord ?? []) {
    if (!Object.hasOwn(chains, chainId)) {
      throw new UsageError(
        `--ord: ${chainId} is not a bip122 chain this wallet serves (mainnet, testnet, regtest)`,
      )
    }
    chains[chainId] = { ...chains[chainId], assets: ordServer(url) }
  }
  let keys: ReturnType<typeof hdKeys>
  try {
    keys = hdKeys({ mnemonic: options.mnemonic, account: options.account })
  } catch (error) {
    // hdKeys' messages never contain the words.
    throw new UsageError(error instanceof Error ? error.message : 'invalid mnemonic')
  }
  return bip122({ keys, chains })
}
