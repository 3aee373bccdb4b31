import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import type * as bitcoin from 'bitcoinjs-lib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainProvider } from '../../../src/bip122/types.js'
import { buildPsbt, foreignParty, type Harness, startHarness } from '../../bip122/psbtFixture.js'

/**
 * `signPsbt` with `broadcast: true`: nothing the node would reject leaves the wallet. Every input of the
 * final transaction, foreign ones included, is checked (template and signature, by wallet-rpc/verify's
 * independent code) before the one broadcast; a bogus foreign signature is refused with -32602 and the
 * provider never sees the transaction. A valid foreign signature is broadcast and mined.
 */
let chain: BitcoinRegtest
let wallet: Harness
let broadcasts = 0
const recipient = foreignParty('broadcast verify recipient')

beforeAll(async () => {
  chain = await startBitcoinRegtest()
  wallet = await startHarness({
    chain,
    provider: (real): ChainProvider => ({
      ...real,
      broadcast: (raw) => {
        broadcasts++
        return real.broadcast(raw)
      },
    }),
  })
})
afterAll(async () => {
  await wallet.stop()
  await chain.stop()
})

/** A PSBT spending one coin of ours and one of `theirs`, with their input already finalized by `finalize`. */
async function twoParty(
  seed: string,
  finalize: (psbt: bitcoin.Psbt, signer: ReturnType<typeof foreignParty>) => void,
) {
  const coin = await wallet.address(84, 0, 3)
  const ours = chain.fund(coin.address, 50_000)
  const theirs = foreignParty(seed)
  const theirCoin = chain.fund(theirs.address, 40_000)
  const psbt = buildPsbt(
    [
      { ...ours, script: coin.scriptPubKey, value: 50_000 },
      { ...theirCoin, script: theirs.script, value: 40_000 },
    ],
    [{ script: recipient.script, value: 88_000 }],
  )
  finalize(psbt, theirs)
  return wallet.call('signPsbt', {
    account: wallet.accountId,
    psbt: psbt.toBase64(),
    signInputs: [{ address: coin.address, index: 0 }],
    broadcast: true,
  })
}

describe('signPsbt broadcast: every input verified first', () => {
  it('a foreign input finalized with a bogus signature: -32602, nothing broadcast', async () => {
    const before = broadcasts
    const answer = await twoParty('bogus co-signer', (psbt, theirs) => {
      psbt.signInput(1, theirs.signer)
      psbt.finalizeInput(1)
      const witness = psbt.data.inputs[1]!.finalScriptWitness!
      // Flip a bit inside the DER signature (the first witness item, after the item count and length).
      witness[10] = witness[10]! ^ 1
    })
    expect(answer.error).toMatchObject({ code: -32602, data: { path: 'psbt' } })
    expect(JSON.stringify(answer.error)).toContain('nothing was broadcast')
    expect(broadcasts).toBe(before)
  })

  it('a foreign input finalized with a valid signature: broadcast once and mined', async () => {
    const before = broadcasts
    const answer = await twoParty('honest co-signer', (psbt, theirs) => {
      psbt.signInput(1, theirs.signer)
      psbt.finalizeInput(1)
    })
    expect(answer.error).toBeUndefined()
    expect(broadcasts).toBe(before + 1)
    const { txid } = answer.result as { txid: string }
    expect(chain.chain.mempool.has(txid)).toBe(true)
  })
})
