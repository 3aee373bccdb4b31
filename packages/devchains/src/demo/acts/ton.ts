// The demo's ton act: TON Connect sign-in (ton_proof), ton_signData, and messages sent on the TON sandbox.
import { randomBytes } from 'node:crypto'
import { base64, hex } from '@scure/base'
import { Address, beginCell, Cell, contractAddress, fromNano, loadStateInit } from '@ton/core'
import { mnemonicNew } from '@ton/crypto'
import { createWalletRpc, type Review } from 'wallet-rpc'
import { ton, tonKeys } from 'wallet-rpc/ton'
import { type TonProof, verifyTonProof } from 'wallet-rpc/verify'
import { jettonTransferBody } from '../../tonJetton.js'
import { type Chains, TON } from '../chains.js'
import { type DappSession, origin, verify } from '../dapp.js'

export async function tonAct(session: DappSession, chains: Chains): Promise<void> {
  const properties = await session.wallet.sessionProperties()
  const publicKey = properties.ton_getPublicKey ?? ''
  const stateInit = properties.ton_getStateInit ?? ''
  const walletAddress = contractAddress(0, loadStateInit(Cell.fromBase64(stateInit).beginParse()))
  const now = () => Math.floor(Date.now() / 1000)
  const session_ = { publicKey, stateInit }
  const domain = new URL(origin).host

  for (const payload of [
    { type: 'text', text: 'Confirm: link wallet to dapp.example' },
    { type: 'binary', bytes: base64.encode(randomBytes(24)) },
    {
      type: 'cell',
      schema: 'message#_ text:^Cell = InMsgBody;',
      cell: beginCell()
        .storeRef(beginCell().storeStringTail('hello').endCell())
        .endCell()
        .toBoc()
        .toString('base64'),
    },
  ]) {
    await session.step(
      TON,
      'ton_signData',
      [payload],
      (result) => verify.ton.ton_signData!([payload], result, { ...session_, domain, now: now() }),
      `ton_signData (${payload.type})`,
    )
  }

  // TON Connect's sign-in (the `ton_proof` connect item): the dapp's backend checks it before it trusts the address.
  const proofPayload = hex.encode(randomBytes(32))
  await session.step<{ address: string; proof: TonProof }>(
    TON,
    'ton_proof',
    [{ domain, payload: proofPayload }],
    ({ address, proof }) =>
      verifyTonProof(proof, { ...session_, address, domains: [domain], payload: proofPayload, now: now() }),
    'ton_proof (TON Connect sign-in)',
  )

  await chains.ton.fund(walletAddress, 3_000_000_000n)
  const recipient = new Address(0, randomBytes(32))
  const recipientFriendly = recipient.toString({ bounceable: false, testOnly: true })
  const comment = beginCell()
    .storeUint(0, 32)
    .storeStringTail('wallet-rpc demo')
    .endCell()
    .toBoc()
    .toString('base64')
  const sendParams = [
    {
      valid_until: now() + 300,
      from: walletAddress.toRawString(),
      messages: [
        { address: recipientFriendly, amount: '200000000', payload: comment },
        { address: recipientFriendly, amount: '50000000' },
      ],
    },
  ]
  await session.step(
    TON,
    'ton_sendMessage',
    sendParams,
    async (result) => {
      const verdict = verify.ton.ton_sendMessage!(sendParams, result, { ...session_, now: now() })
      if (!verdict.valid) return verdict
      const balance = (await chains.ton.blockchain.getContract(recipient)).balance
      return balance >= 250_000_000n - 10_000_000n
        ? verdict
        : { valid: false, reason: `recipient holds ${balance}` }
    },
    'ton_sendMessage (2 messages, deploys)',
  )
  await session.step(
    TON,
    'ton_sendMessage',
    [{ messages: [{ address: recipientFriendly, amount: '1000000' }] }],
    (result) =>
      verify.ton.ton_sendMessage!(
        [{ messages: [{ address: recipientFriendly, amount: '1000000' }] }],
        result,
        {
          ...session_,
          now: now(),
          seqno: 1,
        },
      ),
    'ton_sendMessage (seqno 1)',
  )
  await jettonTransferReview(session, chains)
}

/**
 * The review a wallet shows before a jetton transfer, with the balance changes its chain provider emulates (the
 * unsigned message run on a snapshot of the sandbox), checked against the balances after the real send. A wallet
 * of its own, on the sandbox provider itself: the CLI wallet reaches the sandbox through the toncenter v2 facade,
 * which has no emulation API.
 */
async function jettonTransferReview(session: DappSession, chains: Chains): Promise<void> {
  const started = performance.now()
  const reviews: Review[] = []
  const wallet = createWalletRpc({
    namespaces: [
      ton({
        keys: await tonKeys.fromMnemonic(await mnemonicNew(24)),
        chains: [TON],
        providers: { [TON]: chains.ton.provider },
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  let verified = false
  let note: string
  try {
    const stateInit = (await wallet.sessionProperties()).ton_getStateInit ?? ''
    const owner = contractAddress(0, loadStateInit(Cell.fromBase64(stateInit).beginParse()))
    await chains.ton.fund(owner, 1_000_000_000n)
    const jetton = await chains.ton.deployJetton({ name: 'Demo Token', symbol: 'DEMO', decimals: 6 })
    await jetton.mint(owner, 100_000_000n)
    const tonBefore = (await chains.ton.blockchain.getContract(owner)).balance
    const payload = jettonTransferBody({
      amount: 12_500_000n,
      destination: new Address(0, randomBytes(32)),
      responseDestination: owner,
    })
    const response = (await wallet.handle({
      chainId: TON,
      origin,
      request: {
        id: 1,
        jsonrpc: '2.0',
        method: 'ton_sendMessage',
        params: {
          messages: [
            {
              address: (await jetton.walletOf(owner)).toString({ bounceable: true, testOnly: true }),
              amount: '100000000',
              payload: payload.toBoc().toString('base64'),
            },
          ],
        },
      },
    })) as { result?: unknown; error?: { message: string } }
    const tonChange = (await chains.ton.blockchain.getContract(owner)).balance - tonBefore
    const jettons = await jetton.balanceOf(owner)
    const section = reviews[0]?.items.find((item) => item.label === 'Balance changes (simulated)')
    const lines = section !== undefined && 'items' in section ? section.items : []
    const sent = lines.flatMap((line) => ('value' in line && line.label === 'You send' ? [line.value] : []))
    const expected = [
      `-${fromNano(-tonChange)} TON`,
      `-12.5 DEMO (token ${jetton.master.toString({ testOnly: true })}, symbol as it reports)`,
    ]
    verified = response.result !== undefined && jettons === 87_500_000n && sent.join() === expected.join()
    note = verified
      ? `balance changes: ${sent.join(', ')}`
      : `review showed ${JSON.stringify(sent)}, chain moved ${JSON.stringify(expected)}${response.error ? ` (${response.error.message})` : ''}`
  } catch (error) {
    note = error instanceof Error ? error.message : String(error)
  } finally {
    await wallet.close()
  }
  session.note({
    method: 'ton_sendMessage review (jetton transfer)',
    chain: TON,
    verified,
    ms: Math.round(performance.now() - started),
    note,
  })
}
