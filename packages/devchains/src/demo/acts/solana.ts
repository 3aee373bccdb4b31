// The demo's solana act: accounts, a message, one and several transactions signed, one sent and its transfer
// seen on the runtime, and a transaction passed off as a message refused.
import { type Chains, SOLANA } from '../chains.js'
import { type DappSession, verify } from '../dapp.js'

export async function solanaAct(session: DappSession, chains: Chains): Promise<void> {
  const kit = await import('@solana/kit')
  const { getTransferSolInstruction } = await import('@solana-program/system')
  const accounts = await session.step<{ pubkey: string }[]>(SOLANA, 'solana_getAccounts', {}, (result) =>
    Array.isArray(result) && result.length === 1 && typeof result[0]?.pubkey === 'string'
      ? { valid: true }
      : { valid: false, reason: 'expected one account' },
  )
  await session.step<{ pubkey: string }[]>(SOLANA, 'solana_requestAccounts', {}, (result) =>
    JSON.stringify(result) === JSON.stringify(accounts)
      ? { valid: true }
      : { valid: false, reason: 'differs from solana_getAccounts' },
  )
  const pubkey = accounts?.[0]?.pubkey
  if (pubkey === undefined) return
  const owner = kit.address(pubkey)
  chains.solana.svm.airdrop(owner, kit.lamports(5_000_000_000n))
  const recipient = kit.address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')
  const transfer = (amount: bigint) => {
    const message = kit.pipe(
      kit.createTransactionMessage({ version: 0 }),
      (m) => kit.setTransactionMessageFeePayer(owner, m),
      (m) =>
        kit.setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: kit.blockhash(chains.solana.svm.latestBlockhash()), lastValidBlockHeight: 1000n },
          m,
        ),
      (m) =>
        kit.appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: kit.createNoopSigner(owner),
              destination: recipient,
              amount,
            }),
          ],
          m,
        ),
    )
    return kit.getBase64EncodedWireTransaction(kit.compileTransaction(message))
  }
  const message = {
    message: kit.getBase58Decoder().decode(new TextEncoder().encode('Sign in to dapp.example')),
    pubkey,
  }
  await session.step(SOLANA, 'solana_signMessage', message, (result) =>
    verify.solana.solana_signMessage!(message, result),
  )
  const signParams = { transaction: transfer(1_000_000n), pubkey }
  await session.step(SOLANA, 'solana_signTransaction', signParams, (result) =>
    verify.solana.solana_signTransaction!(signParams, result),
  )
  const allParams = { transactions: [transfer(2_000_000n), transfer(3_000_000n)] }
  await session.step(SOLANA, 'solana_signAllTransactions', allParams, (result) =>
    verify.solana.solana_signAllTransactions!(allParams, result),
  )
  const sendParams = { transaction: transfer(4_000_000n) }
  const before = chains.solana.svm.getBalance(recipient) ?? 0n
  await session.step(SOLANA, 'solana_signAndSendTransaction', sendParams, (result) => {
    const verdict = verify.solana.solana_signAndSendTransaction!(sendParams, result)
    if (!verdict.valid) return verdict
    const moved = (chains.solana.svm.getBalance(recipient) ?? 0n) - before
    return moved === 4_000_000n ? verdict : { valid: false, reason: `recipient received ${moved} lamports` }
  })
  await session.refused(
    SOLANA,
    'solana_signMessage',
    { message: kit.getBase58Decoder().decode(kit.getBase64Encoder().encode(transfer(5n))), pubkey },
    -32602,
    'a transaction passed off as a message is refused',
  )
}
