import type { Address, Hex, SignedAuthorization } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, type Harness, minedReceipt } from '../helpers.js'
import { devAccounts, devSigner, type PragueChain, startPragueChain } from './pragueChain.js'

/**
 * Type-4 `eth_sendRawTransaction` on anvil (prague), every authorization signed by viem: each authorization's
 * authority is recovered from its own signature. The wallet holds dev accounts 4 and 5; 9 is someone else.
 */
const foreignDelegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'
const secp256k1Order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

let prague: PragueChain
let wallet: Harness
/** The same accounts on a chain without a configured delegate. */
let noDelegate: Harness

beforeAll(async () => {
  prague = await startPragueChain()
  wallet = prague.wallet([4, 5])
  noDelegate = prague.wallet([4, 5], { delegate: false })
}, 60_000)

afterAll(async () => {
  await prague?.stop()
})

/** A type-4 transaction sent by dev account `sender`, carrying `authorization`. */
async function type4(sender: number, authorization: SignedAuthorization): Promise<Hex> {
  const account = devSigner(sender)
  return account.signTransaction({
    type: 'eip7702',
    chainId: prague.anvil.chainId,
    nonce: await prague.chain.getTransactionCount({ address: account.address }),
    to: account.address,
    gas: 100_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
    authorizationList: [authorization],
  })
}

/** An authorization by dev account `authority`; self-sponsored ones take the transaction's nonce + 1. */
async function authorize(authority: number, address: Address, chainId: number, selfSponsored: boolean) {
  const account = devSigner(authority)
  const nonce = await prague.chain.getTransactionCount({ address: account.address })
  return account.signAuthorization!({ chainId, address, nonce: selfSponsored ? nonce + 1 : nonce })
}

const refusal = async (harness: Harness, raw: Hex) => {
  const asked = harness.reviews.length
  const error = errorOf(await harness.call('eth_sendRawTransaction', [raw]))
  // Refused before any approval was asked.
  expect(harness.reviews.length).toBe(asked)
  return error as { code: number; data: { rule: string; reason: string } }
}

describe('type-4 eth_sendRawTransaction: authorities recovered from the signatures', () => {
  it("our account's authorization to another delegate is refused, also when someone else sends it", async () => {
    const selfSent = await type4(4, await authorize(4, foreignDelegate, prague.anvil.chainId, true))
    expect(await refusal(wallet, selfSent)).toMatchObject({
      code: -32602,
      data: { rule: 'eip7702.foreign_authorization' },
    })
    const sponsored = await type4(9, await authorize(4, foreignDelegate, prague.anvil.chainId, false))
    const error = await refusal(wallet, sponsored)
    expect(error).toMatchObject({ code: -32602, data: { rule: 'eip7702.foreign_authorization' } })
    expect(error.data.reason).toContain(devAccounts[4])
  })

  it("our account's authorization for chain id 0 is refused, even to the configured delegate", async () => {
    const error = await refusal(wallet, await type4(4, await authorize(4, prague.delegate, 0, true)))
    expect(error.data).toMatchObject({ rule: 'eip7702.foreign_authorization' })
    expect(error.data.reason).toContain('every chain')
  })

  it("on a chain without a configured delegate, our account's authorization is refused", async () => {
    const raw = await type4(5, await authorize(5, prague.delegate, prague.anvil.chainId, true))
    expect((await refusal(noDelegate, raw)).data.rule).toBe('eip7702.foreign_authorization')
  })

  it('a signature recovering to no account (high s) is refused', async () => {
    const authorization = await authorize(9, foreignDelegate, prague.anvil.chainId, true)
    const highS = `0x${(secp256k1Order - BigInt(authorization.s)).toString(16).padStart(64, '0')}` as Hex
    const raw = await type4(9, { ...authorization, s: highS })
    expect((await refusal(wallet, raw)).data.rule).toBe('eip7702.invalid_authorization')
  })

  it('our authorization to the configured delegate on this chain is relayed and mined; the review names the recovered signer', async () => {
    const hash = await wallet.result<Hex>('eth_sendRawTransaction', [
      await type4(4, await authorize(4, prague.delegate, prague.anvil.chainId, true)),
    ])
    expect((await minedReceipt(prague.chain, hash)).status).toBe('success')
    expect(await prague.chain.getCode({ address: devAccounts[4] })).toBe(
      `0xef0100${prague.delegate.slice(2).toLowerCase()}`,
    )
    const review = wallet.reviews.at(-1)!
    expect(JSON.stringify(review.items)).toContain(`"Account (recovered signer)","value":"${devAccounts[4]}"`)
    expect(review.warnings.map((warning) => warning.code)).not.toContain('eip7702.foreign_authority')
  })

  it('while our relayed self-sponsored type-4 is pending, the next send skips its authorization nonce (n + 1)', async () => {
    const sender = 7
    const from = devAccounts[sender]
    const fresh = prague.wallet([sender])
    const nonce = await prague.chain.getTransactionCount({ address: from })
    const raw = await type4(sender, await authorize(sender, prague.delegate, prague.anvil.chainId, true))
    await prague.rpc('evm_setAutomine', [false])
    let relayed: Hex
    let next: Hex
    try {
      relayed = await fresh.result<Hex>('eth_sendRawTransaction', [raw])
      // The node counts the pending type-4 (n) but not the authorization's nonce (n + 1) it will use.
      next = await fresh.result<Hex>('eth_sendTransaction', [
        { from, to: '0x00000000000000000000000000000000000b0f02', value: '0x1' },
      ])
      await prague.rpc('evm_mine', [])
    } finally {
      await prague.rpc('evm_setAutomine', [true])
    }
    expect((await minedReceipt(prague.chain, relayed)).status).toBe('success')
    expect((await prague.chain.getTransaction({ hash: next })).nonce).toBe(nonce + 2)
    expect((await minedReceipt(prague.chain, next)).status).toBe('success')
  })

  it("another account's authorization to anything but the configured delegate is refused before any approval", async () => {
    const error = await refusal(
      wallet,
      await type4(9, await authorize(9, foreignDelegate, prague.anvil.chainId, true)),
    )
    expect(error.data.rule).toBe('eip7702.foreign_authorization')
    expect(error.data.reason).toContain(devAccounts[9])
    expect(await prague.chain.getCode({ address: devAccounts[9] })).toBeUndefined()
  })

  it("another account's authorization to the configured delegate is relayed with a caution naming it; only that account is delegated", async () => {
    const hash = await wallet.result<Hex>('eth_sendRawTransaction', [
      await type4(9, await authorize(9, prague.delegate, prague.anvil.chainId, true)),
    ])
    expect((await minedReceipt(prague.chain, hash)).status).toBe('success')
    const warning = wallet.reviews.at(-1)!.warnings.find((w) => w.code === 'eip7702.foreign_authority')
    expect(warning).toMatchObject({ severity: 'caution' })
    expect(warning!.message).toContain(devAccounts[9])
    expect(await prague.chain.getCode({ address: devAccounts[9] })).toBe(
      `0xef0100${prague.delegate.slice(2).toLowerCase()}`,
    )
    expect(await prague.chain.getCode({ address: devAccounts[5] })).toBeUndefined()
  })
})
