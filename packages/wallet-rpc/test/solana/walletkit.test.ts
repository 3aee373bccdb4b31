import { describe, expect, it } from 'vitest'
import { fixedClock } from '../../src/core/clock.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { solana, solanaDevnet, solanaKeys, solanaMainnet } from '../../src/solana/index.js'
import { verifySolanaSignTransaction } from '../../src/verify/index.js'
import { attachWalletKit } from '../../src/walletkit/index.js'
import { FakeWalletKit } from '../walletkit/fakeWalletKit.js'
import { NOW_SECONDS, proposalEvent, requestEvent } from '../walletkit/fixtures.js'
import { kitTransaction, mnemonic, ours } from './helpers.js'

/** What Reown AppKit's Solana adapter proposes (its SolanaWalletConnectProvider's namespace). */
const appKitSolana = {
  solana: {
    chains: [solanaMainnet, solanaDevnet],
    methods: [
      'solana_signMessage',
      'solana_signTransaction',
      'solana_requestAccounts',
      'solana_getAccounts',
      'solana_signAllTransactions',
      'solana_signAndSendTransaction',
    ],
    events: [],
  },
}

describe('solana through the WalletKit adapter', () => {
  it('approves base58 CAIP-10 accounts on the proposed chains and answers signTransaction as AppKit reads it', async () => {
    const wallet = createWalletRpc({
      namespaces: [solana({ keys: solanaKeys.fromMnemonic(mnemonic) })],
      approve: () => true,
      clock: fixedClock(NOW_SECONDS),
    })
    const walletKit = new FakeWalletKit()
    attachWalletKit(walletKit, wallet, { approveSession: () => true, clock: fixedClock(NOW_SECONDS) })
    await walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: appKitSolana }))
    const [approval] = walletKit.callsTo('approveSession')
    expect(approval?.namespaces.solana?.accounts).toEqual([
      `${solanaMainnet}:${ours()}`,
      `${solanaDevnet}:${ours()}`,
    ])
    expect(approval?.namespaces.solana?.methods).toEqual(expect.arrayContaining(appKitSolana.solana.methods))

    const params = { transaction: kitTransaction({ feePayer: ours() }).base64, pubkey: ours() }
    const event = requestEvent('session-topic-1', solanaMainnet, { method: 'solana_signTransaction', params })
    await walletKit.deliver('session_request', event)
    const response = walletKit.callsTo('respondSessionRequest')[0]!.response
    if (!('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response)}`)
    expect(verifySolanaSignTransaction(params, response.result)).toEqual({ valid: true })
    await wallet.close()
  })
})
