import type { Namespace } from '../core/namespace.js'
import { type TonChainId, type TonChainProvider, ton, tonChains, toncenter, tonKeys } from '../ton/index.js'
import { UsageError, type WalletCliOptions } from './options.js'

/**
 * The ton namespace the CLI builds from its options, or undefined without `--ton-mnemonic-file` (or
 * WALLET_RPC_TON_MNEMONIC). Serves `ton:-239` and `ton:-3` with one wallet (`--ton-wallet v5r1|v4r2`);
 * `--account N` opens subwallet N (v5R1 subwallet number, v4R2 wallet id 698983191 + N);
 * `--toncenter ton:-3=https://testnet.toncenter.com/api/v2` enables `ton_sendMessage` on that chain.
 */
export async function wireTon(options: WalletCliOptions): Promise<Namespace | undefined> {
  if (options.tonMnemonic === undefined) return undefined
  const providers: Partial<Record<TonChainId, TonChainProvider>> = {}
  for (const [chainId, url] of options.toncenter) {
    if (!(tonChains as readonly string[]).includes(chainId)) {
      throw new UsageError(`--toncenter takes ${tonChains.join(' or ')}, got ${chainId}`)
    }
    providers[chainId as TonChainId] = toncenter(url, {
      ...(process.env.TONCENTER_API_KEY ? { apiKey: process.env.TONCENTER_API_KEY } : {}),
    })
  }
  if (options.account > 0x7fff) throw new UsageError('--account must be 0..32767 for TON subwallets')
  const keys = await tonKeys.fromMnemonic(options.tonMnemonic).catch((error: unknown) => {
    // The message never carries the words.
    throw new UsageError(
      `--ton-mnemonic-file: ${error instanceof Error ? error.message : 'cannot derive the key'}`,
    )
  })
  const wallet =
    options.tonWallet === 'v4r2'
      ? { version: 'v4r2' as const, walletId: 698983191 + options.account }
      : { version: 'v5r1' as const, subwalletNumber: options.account }
  return ton({ keys, wallet, providers })
}
