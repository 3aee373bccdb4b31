// The demo's ton act: TON Connect sign-in (ton_proof), ton_signData, and messages sent on the TON sandbox.
import { randomBytes } from 'node:crypto'
import { base64, hex } from '@scure/base'
import { Address, beginCell, Cell, contractAddress, loadStateInit } from '@ton/core'
import { type TonProof, verifyTonProof } from 'wallet-rpc/verify'
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
}
