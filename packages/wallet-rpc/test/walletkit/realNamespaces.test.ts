import { recoverPersonalSignature } from '@metamask/eth-sig-util'
import { describe, expect, it, vi } from 'vitest'
import { BIP122_MAINNET, bip122, hdKeys } from '../../src/bip122/index.js'
import { fixedClock } from '../../src/core/clock.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { attachWalletKit } from '../../src/walletkit/index.js'
import { FakeWalletKit } from './fakeWalletKit.js'
import {
  appKitNamespaces,
  DAPP_ORIGIN,
  ETHEREUM,
  NOW_SECONDS,
  proposalEvent,
  requestEvent,
} from './fixtures.js'

// The BIP-39 test mnemonic. Expected accounts come from the specs' own vectors, not from our code:
// BIP-84 gives bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu for m/84'/0'/0'/0/0, and m/44'/60'/0'/0/0 is
// 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 (the address every BIP-44 Ethereum wallet derives).
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const bitcoinAccount = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
const ethereumAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'

function setup() {
  const approve = vi.fn(() => true)
  const onError = vi.fn()
  const wallet = createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_MAINNET]: {} } }),
      eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
    ],
    approve,
    onError,
    clock: fixedClock(NOW_SECONDS),
  })
  const walletKit = new FakeWalletKit()
  const adapter = attachWalletKit(walletKit, wallet, {
    approveSession: () => true,
    onError,
    clock: fixedClock(NOW_SECONDS),
  })
  return { wallet, walletKit, adapter, approve, onError }
}

describe('with the real bip122 and eip155 namespaces', () => {
  it('approves the account id and the BIP-44 address, shares the addresses, and announces them', async () => {
    const { wallet, walletKit, onError } = setup()
    await walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: appKitNamespaces }))

    const [approval] = walletKit.callsTo('approveSession')
    expect(approval?.namespaces.bip122?.accounts).toEqual([`${BIP122_MAINNET}:${bitcoinAccount}`])
    expect(approval?.namespaces.eip155?.accounts.map((account) => account.toLowerCase())).toEqual([
      `${ETHEREUM}:${ethereumAccount.toLowerCase()}`,
    ])
    expect(approval?.namespaces.bip122?.methods).toEqual(
      expect.arrayContaining(['getAccountAddresses', 'signMessage']),
    )
    expect(approval?.namespaces.bip122?.events).toEqual(['bip122_addressesChanged'])

    const listed = JSON.parse(approval?.sessionProperties?.bip122_getAccountAddresses ?? 'null') as Array<{
      address: string
    }>
    expect(listed[0]?.address).toBe(bitcoinAccount)
    expect(walletKit.callsTo('emitSessionEvent')).toEqual([
      {
        topic: 'session-topic-1',
        event: { name: 'bip122_addressesChanged', data: listed },
        chainId: BIP122_MAINNET,
      },
    ])
    expect(onError).not.toHaveBeenCalled()
    await wallet.close()
  })

  it('answers personal_sign with a signature an independent implementation recovers to the account', async () => {
    const { wallet, walletKit, approve } = setup()
    const message = '0x48656c6c6f2c2057616c6c6574436f6e6e656374' // "Hello, WalletConnect"
    const event = requestEvent('session-topic-1', ETHEREUM, {
      method: 'personal_sign',
      params: [message, ethereumAccount],
    })
    await walletKit.deliver('session_request', event)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(approve.mock.calls[0]).toMatchObject([{ origin: DAPP_ORIGIN, method: 'personal_sign' }])
    const answers = walletKit.callsTo('respondSessionRequest')
    expect(answers).toHaveLength(1)
    const response = answers[0]!.response
    expect(response.id).toBe(event.id)
    if (!('result' in response)) throw new Error(`expected a signature, got ${JSON.stringify(response)}`)
    const signature = response.result as string
    expect(recoverPersonalSignature({ data: message, signature }).toLowerCase()).toBe(
      ethereumAccount.toLowerCase(),
    )
    await wallet.close()
  })
})
