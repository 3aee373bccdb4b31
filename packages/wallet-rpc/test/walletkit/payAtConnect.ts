import { WalletKit } from '@reown/walletkit'
import { SignClient } from '@walletconnect/sign-client'
import type { EngineTypes, ProposalTypes, SessionTypes } from '@walletconnect/types'
import type { WalletRpc } from '../../src/createWalletRpc.js'
import {
  type AttachWalletKitOptions,
  attachWalletKit,
  type SessionApprovalAnswer,
  type SessionProposalReview,
} from '../../src/walletkit/index.js'
import { closeSdkClients, type LocalRelay, relayCore } from './localRelay.js'

/** What the pay-at-connect e2e tests share: a shop dapp connecting with `walletPay`, and reading what it got. */
export type ShopDapps = Array<InstanceType<typeof SignClient>>

/**
 * A shop's `SignClient.connect({ optionalNamespaces, walletPay })` over `relay`, paired by `wallet`; resolves with
 * the session the dapp got. Each dapp is pushed to `dapps` so the test closes it.
 */
export async function connectShop(
  relay: LocalRelay,
  wallet: { pair(params: { uri: string }): Promise<unknown> },
  dapps: ShopDapps,
  optionalNamespaces: ProposalTypes.OptionalNamespaces,
  walletPay: unknown,
): Promise<SessionTypes.Struct> {
  const dapp = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: 'Shop', description: '', url: 'https://shop.example', icons: [] },
    logger: 'silent',
  })
  dapps.push(dapp)
  const { uri, approval } = await dapp.connect({
    optionalNamespaces,
    walletPay: walletPay as EngineTypes.WalletPayParams,
  })
  if (!uri) throw new Error('no pairing uri')
  await wallet.pair({ uri })
  return approval()
}

export const inFiveMinutes = () => Math.floor(Date.now() / 1000) + 300

/** The `walletPay` answers the dapp's session carries (sign-client 2.25 names them `walletPayResult`). */
export const paidTo = (session: SessionTypes.Struct) =>
  (session as SessionTypes.Struct & { walletPayResult?: EngineTypes.WalletPayResult[] }).walletPayResult

/** The wallet side of a pay-at-connect test: the real WalletKit with `attachWalletKit`, and the shops it met. */
export type ShopWallet = {
  proposals: SessionProposalReview[]
  adapterErrors: unknown[]
  /** A shop connecting with `walletPay` (see `connectShop`). */
  connect(
    optionalNamespaces: ProposalTypes.OptionalNamespaces,
    walletPay: unknown,
  ): Promise<SessionTypes.Struct>
  /** Detaches, closes the wallet, the WalletKit and every shop's client. */
  close(): Promise<void>
}

/**
 * The real `WalletKit` on `relay` with `attachWalletKit(walletKit, wallet, options)`, recording each proposal's
 * review and each adapter error; `answer` is read at each proposal.
 */
export async function startShopWallet(
  relay: LocalRelay,
  wallet: WalletRpc,
  options: Omit<AttachWalletKitOptions, 'approveSession' | 'onError'>,
  answer: () => SessionApprovalAnswer = () => true,
): Promise<ShopWallet> {
  const proposals: SessionProposalReview[] = []
  const adapterErrors: unknown[] = []
  const dapps: ShopDapps = []
  const walletKit = await WalletKit.init({
    core: relayCore(relay, 'wallet'),
    metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
  })
  const adapter = attachWalletKit(walletKit, wallet, {
    ...options,
    approveSession: (proposal) => {
      proposals.push(proposal)
      return answer()
    },
    onError: (error) => adapterErrors.push(error),
  })
  return {
    proposals,
    adapterErrors,
    connect: (optionalNamespaces, walletPay) =>
      connectShop(relay, walletKit, dapps, optionalNamespaces, walletPay),
    async close() {
      adapter.detach()
      await wallet.close()
      await closeSdkClients([...dapps, walletKit])
    },
  }
}
