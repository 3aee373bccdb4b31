import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { createFakeNamespace, createSpySigner, FAKE_ACCOUNT } from '../../core/fakeNamespace.js'

/**
 * A request the user never answers must not stay pending forever, and an approval that arrives after the
 * dapp stopped waiting must not produce a signature.
 */
const sign = { account: FAKE_ACCOUNT, message: 'abcd' }
const nowSeconds = () => Date.now() / 1000

function harness(approve: () => Promise<boolean>) {
  const signer = createSpySigner()
  const { namespace } = createFakeNamespace(signer)
  const wallet = createWalletRpc({ namespaces: [namespace], approve })
  return { wallet, signer }
}

describe('expiry while waiting for approval', () => {
  it('approve never resolves: 8000 once the WalletKit expiryTimestamp passes, nothing signed', async () => {
    const { wallet, signer } = harness(() => new Promise<boolean>(() => {}))
    const response = await wallet.handle({
      id: 1,
      topic: 't',
      params: {
        chainId: 'fake:1',
        request: { method: 'fake_sign', params: sign, expiryTimestamp: nowSeconds() + 0.2 },
      },
    })
    expect(response).toMatchObject({ id: 1, error: { code: 8000 } })
    expect(signer.calls).toEqual([])
  })

  it('the plain shape honours expiryTimestamp too (what the CLI passes through)', async () => {
    const { wallet, signer } = harness(() => new Promise<boolean>(() => {}))
    const response = await wallet.handle({
      chainId: 'fake:1',
      expiryTimestamp: nowSeconds() + 0.2,
      request: { id: 2, method: 'fake_sign', params: sign },
    })
    expect(response).toMatchObject({ id: 2, error: { code: 8000 } })
    expect(signer.calls).toEqual([])
  })

  it('an approval arriving after the expiry is ignored: 8000, and no signature even later', async () => {
    let approveLate: (value: boolean) => void = () => {}
    const { wallet, signer } = harness(() => new Promise<boolean>((resolve) => (approveLate = resolve)))
    const response = await wallet.handle({
      chainId: 'fake:1',
      expiryTimestamp: nowSeconds() + 0.1,
      request: { id: 3, method: 'fake_sign', params: sign },
    })
    expect(response).toMatchObject({ error: { code: 8000 } })
    approveLate(true)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(signer.calls).toEqual([])
  })

  it('an expiry already past: 8000 before the user is even asked', async () => {
    let asked = false
    const { wallet } = harness(async () => {
      asked = true
      return true
    })
    const response = await wallet.handle({
      chainId: 'fake:1',
      expiryTimestamp: nowSeconds() - 1,
      request: { id: 4, method: 'fake_sign', params: sign },
    })
    expect(response).toMatchObject({ error: { code: 8000 } })
    expect(asked).toBe(false)
  })

  it('approval within the expiry signs as usual', async () => {
    const { wallet, signer } = harness(async () => true)
    const response = await wallet.handle({
      chainId: 'fake:1',
      expiryTimestamp: nowSeconds() + 60,
      request: { id: 5, method: 'fake_sign', params: sign },
    })
    expect(response).toMatchObject({ id: 5, result: { signature: 'sig(abcd)' } })
    expect(signer.calls).toEqual([5])
  })
})
