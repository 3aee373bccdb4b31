import { createWalletClient, custom, defineChain, type Hex } from 'viem'
import { getCapabilities } from 'viem/actions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eip1193Of, type Harness, minedReceipt } from '../helpers.js'
import { devAccounts, devSigner, type PragueChain, startPragueChain } from './pragueChain.js'

/**
 * EIP-5792's `atomic` capability, each state on anvil (prague) with the account really in that state (its
 * code set by a type-4 transaction signed by viem, sponsored by dev account 3), asked through the wallet and
 * through viem's `getCapabilities`. The definitions, from ethereum/EIPs EIPS/eip-5792.md at
 * 5b0c8dce4bc67d34082eff7950d44be928641207 (Final; "`atomic` Capability"; ethereum/ERCs no longer holds it):
 */
const spec = {
  supported: '`supported` means that the wallet will execute the calls atomically and contiguously.',
  ready: '`ready` means that the wallet is able to upgrade to `supported` pending user approval.',
  unsupported:
    '`unsupported` means that the wallet does not provide any atomicity or contiguity guarantees, nor will it suggest an upgrade to the user.',
}
const foreignDelegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'
const [notDelegated, delegatedToOurs, delegatedElsewhere, sponsor, holdsCode] = [0, 1, 2, 3, 4]

let prague: PragueChain
let wallet: Harness
/** The same accounts on the same chain, without a delegate configured. */
let noDelegate: Harness

/** Sets `authority`'s code to `0xef0100‖address` with a type-4 transaction sent by the sponsor. */
async function delegate(authority: number, address: Hex): Promise<void> {
  const signer = devSigner(authority)
  const authorization = await signer.signAuthorization!({
    chainId: prague.anvil.chainId,
    address,
    nonce: await prague.chain.getTransactionCount({ address: signer.address }),
  })
  const sender = devSigner(sponsor)
  const raw = await sender.signTransaction({
    type: 'eip7702',
    chainId: prague.anvil.chainId,
    nonce: await prague.chain.getTransactionCount({ address: sender.address }),
    to: sender.address,
    gas: 100_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
    authorizationList: [authorization],
  })
  await minedReceipt(prague.chain, (await prague.rpc('eth_sendRawTransaction', [raw])) as Hex)
  expect(await prague.chain.getCode({ address: signer.address })).toBe(
    `0xef0100${address.slice(2).toLowerCase()}`,
  )
}

beforeAll(async () => {
  prague = await startPragueChain()
  wallet = prague.wallet([notDelegated, delegatedToOurs, delegatedElsewhere, holdsCode])
  noDelegate = prague.wallet([notDelegated], { delegate: false })
  await delegate(delegatedToOurs, prague.delegate)
  await delegate(delegatedElsewhere, foreignDelegate)
  await prague.rpc('anvil_setCode', [devAccounts[holdsCode], '0x6000'])
}, 60_000)

afterAll(async () => {
  await prague?.stop()
})

/** The account's `atomic` status as the wallet answers it, and as viem's getCapabilities reads it. */
async function atomicOf(harness: Harness, index: number): Promise<{ wallet: unknown; viem: unknown }> {
  const address = devAccounts[index]!
  const answer = await harness.result<Record<string, { atomic: unknown }>>('wallet_getCapabilities', [
    address,
    [prague.hexChainId],
  ])
  const chain = defineChain({
    id: prague.anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [prague.anvil.url] } },
  })
  const client = createWalletClient({
    account: address,
    chain,
    transport: custom(eip1193Of(harness.wallet, `eip155:${prague.anvil.chainId}`)),
  })
  const viem = await getCapabilities(client, { chainId: prague.anvil.chainId })
  return { wallet: answer[prague.hexChainId]?.atomic, viem: viem.atomic }
}

describe('EIP-5792 atomic status, as the spec defines it', () => {
  it(`ready — ${spec.ready}: the chain has a delegate, the account is not delegated yet`, async () => {
    expect(await prague.chain.getCode({ address: devAccounts[notDelegated]! })).toBeUndefined()
    expect(await atomicOf(wallet, notDelegated)).toEqual({
      wallet: { status: 'ready' },
      viem: { status: 'ready' },
    })
  })

  it(`supported — ${spec.supported}: the account is delegated to the chain's delegate`, async () => {
    expect(await atomicOf(wallet, delegatedToOurs)).toEqual({
      wallet: { status: 'supported' },
      viem: { status: 'supported' },
    })
  })

  it(`unsupported — ${spec.unsupported}: no delegate configured, delegated elsewhere, or contract code`, async () => {
    const unsupported = { wallet: { status: 'unsupported' }, viem: { status: 'unsupported' } }
    expect(await atomicOf(noDelegate, notDelegated)).toEqual(unsupported)
    expect(await atomicOf(wallet, delegatedElsewhere)).toEqual(unsupported)
    expect(await atomicOf(wallet, holdsCode)).toEqual(unsupported)
  })

  it('what each status promises is what wallet_sendCalls then does', async () => {
    // ready: the batch asks to upgrade the account (the user's approval), then runs atomically.
    const batch = (index: number) => [
      {
        version: '2.0.0',
        chainId: prague.hexChainId,
        from: devAccounts[index],
        atomicRequired: true,
        calls: [{ to: devAccounts[sponsor], value: '0x1' }],
      },
    ]
    const upgrading = await wallet.result<{ capabilities: { caip345: { transactionHashes: Hex[] } } }>(
      'wallet_sendCalls',
      batch(notDelegated),
    )
    expect(wallet.reviews.at(-1)!.warnings.map((warning) => warning.code)).toContain(
      'eip7702.account_upgrade',
    )
    // supported: atomic, with no upgrade to approve.
    await wallet.result('wallet_sendCalls', batch(delegatedToOurs))
    expect(wallet.reviews.at(-1)!.title).toBe('Send 1 call (one atomic transaction)')
    expect(wallet.reviews.at(-1)!.warnings.map((warning) => warning.code)).not.toContain(
      'eip7702.account_upgrade',
    )
    // unsupported: an atomic batch is refused (5760), and no upgrade is suggested.
    const asked = wallet.reviews.length
    expect((await wallet.call('wallet_sendCalls', batch(delegatedElsewhere))).error).toMatchObject({
      code: 5760,
    })
    expect(wallet.reviews.length).toBe(asked)
    // After its first batch the upgraded account is `supported`.
    await minedReceipt(prague.chain, upgrading.capabilities.caip345.transactionHashes[0]!)
    expect(await atomicOf(wallet, notDelegated)).toEqual({
      wallet: { status: 'supported' },
      viem: { status: 'supported' },
    })
  })
})
