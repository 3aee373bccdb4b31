import { SignClient } from '@walletconnect/sign-client'
import type { EngineTypes, ProposalTypes, SessionTypes } from '@walletconnect/types'
import { type LocalRelay, relayCore } from './localRelay.js'

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
