import { sha256 } from '@noble/hashes/sha2.js'
import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import * as bitcoin from 'bitcoinjs-lib'
import * as tiny from 'tiny-secp256k1'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The chain verifies with @scure/btc-signer + @noble/curves; here transactions are signed with
// bitcoinjs-lib + tiny-secp256k1, so acceptance is one implementation agreeing with another.
bitcoin.initEccLib(tiny)
const network = bitcoin.networks.regtest

type AddressStats = { chain_stats: Record<string, number> }

type Kind = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr'

function keyOf(seed: string) {
  const privateKey = sha256(new TextEncoder().encode(seed))
  const publicKey = tiny.pointFromScalar(privateKey, true)!
  return { privateKey, publicKey }
}

function walletOf(kind: Kind, seed: string) {
  const { privateKey, publicKey } = keyOf(seed)
  const xOnly = publicKey.subarray(1)
  const payment =
    kind === 'p2pkh'
      ? bitcoin.payments.p2pkh({ pubkey: publicKey, network })
      : kind === 'p2wpkh'
        ? bitcoin.payments.p2wpkh({ pubkey: publicKey, network })
        : kind === 'p2sh-p2wpkh'
          ? bitcoin.payments.p2sh({
              redeem: bitcoin.payments.p2wpkh({ pubkey: publicKey, network }),
              network,
            })
          : bitcoin.payments.p2tr({ internalPubkey: xOnly, network })
  const tweak = bitcoin.crypto.taggedHash('TapTweak', xOnly)
  const tweakedKey = tiny.privateAdd(publicKey[0] === 3 ? tiny.privateNegate(privateKey) : privateKey, tweak)!
  const signer = {
    publicKey,
    sign: (hash: Uint8Array) => tiny.sign(hash, privateKey),
  }
  const taprootSigner = {
    publicKey: Uint8Array.from([2, ...tiny.xOnlyPointFromScalar(tweakedKey)]),
    sign: (hash: Uint8Array) => tiny.sign(hash, tweakedKey),
    signSchnorr: (hash: Uint8Array) => tiny.signSchnorr(hash, tweakedKey),
  }
  return { kind, address: payment.address!, script: payment.output!, payment, signer, taprootSigner, xOnly }
}

type Wallet = ReturnType<typeof walletOf>

async function spend(
  chain: BitcoinRegtest,
  from: Wallet,
  outpoints: { txid: string; vout: number; value: number }[],
  outputs: { script: Uint8Array; value: number }[],
  sighashType?: number,
): Promise<string> {
  const psbt = new bitcoin.Psbt({ network })
  for (const outpoint of outpoints) {
    const input: Parameters<typeof psbt.addInput>[0] = {
      hash: outpoint.txid,
      index: outpoint.vout,
      sequence: 0xfffffffd,
    }
    if (from.kind === 'p2pkh') {
      const raw = await (await fetch(`${chain.url}/tx/${outpoint.txid}/hex`)).text()
      input.nonWitnessUtxo = Buffer.from(raw, 'hex')
    } else {
      input.witnessUtxo = { script: from.script, value: BigInt(outpoint.value) }
    }
    if (from.kind === 'p2sh-p2wpkh') input.redeemScript = from.payment.redeem!.output!
    if (from.kind === 'p2tr') input.tapInternalKey = from.xOnly
    if (sighashType !== undefined) input.sighashType = sighashType
    psbt.addInput(input)
  }
  for (const output of outputs) psbt.addOutput({ script: output.script, value: BigInt(output.value) })
  const allowed = sighashType === undefined ? undefined : [sighashType]
  outpoints.forEach((_, index) => {
    psbt.signInput(index, from.kind === 'p2tr' ? from.taprootSigner : from.signer, allowed)
  })
  psbt.finalizeAllInputs()
  return psbt.extractTransaction().toHex()
}

async function post(chain: BitcoinRegtest, hex: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${chain.url}/tx`, { method: 'POST', body: hex })
  return { status: response.status, text: await response.text() }
}

let chain: BitcoinRegtest
beforeAll(async () => {
  chain = await startBitcoinRegtest()
})
afterAll(async () => {
  await chain.stop()
})

describe('embedded regtest chain over Esplora', () => {
  const kinds: Kind[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr']
  for (const kind of kinds) {
    it(`accepts a ${kind} spend signed by bitcoinjs-lib, mines it, and serves it`, async () => {
      const from = walletOf(kind, `from ${kind}`)
      const to = walletOf('p2wpkh', `to ${kind}`)
      const funded = chain.fund(from.address, 100_000)
      const utxos = await (await fetch(`${chain.url}/address/${from.address}/utxo`)).json()
      expect(utxos).toEqual([
        { txid: funded.txid, vout: 0, value: 100_000, status: expect.objectContaining({ confirmed: true }) },
      ])
      const hex = await spend(
        chain,
        from,
        [{ ...funded, value: 100_000 }],
        [{ script: to.script, value: 99_000 }],
      )
      const result = await post(chain, hex)
      expect(result).toEqual({ status: 200, text: bitcoin.Transaction.fromHex(hex).getId() })
      const txid = result.text
      expect(await (await fetch(`${chain.url}/tx/${txid}/hex`)).text()).toBe(hex)
      expect(await (await fetch(`${chain.url}/tx/${txid}/status`)).json()).toEqual({ confirmed: false })
      expect(await (await fetch(`${chain.url}/address/${from.address}/utxo`)).json()).toEqual([])
      chain.mine(1)
      const status = await (await fetch(`${chain.url}/tx/${txid}/status`)).json()
      expect(status).toMatchObject({ confirmed: true, block_height: chain.chain.height })
      const stats = (await (await fetch(`${chain.url}/address/${to.address}`)).json()) as AddressStats
      expect(stats.chain_stats).toMatchObject({ funded_txo_count: 1, funded_txo_sum: 99_000, tx_count: 1 })
      const fromStats = (await (await fetch(`${chain.url}/address/${from.address}`)).json()) as AddressStats
      expect(fromStats.chain_stats).toMatchObject({ funded_txo_count: 1, spent_txo_count: 1, tx_count: 2 })
      const json = (await (await fetch(`${chain.url}/tx/${txid}`)).json()) as { fee: number; vout: unknown[] }
      expect(json.fee).toBe(1000)
      expect(json.vout[0]).toMatchObject({ scriptpubkey_address: to.address, value: 99_000 })
    })
  }

  it('refuses a double spend, in the mempool and after mining', async () => {
    const from = walletOf('p2wpkh', 'double')
    const funded = chain.fund(from.address, 50_000)
    const a = await spend(
      chain,
      from,
      [{ ...funded, value: 50_000 }],
      [{ script: walletOf('p2tr', 'a').script, value: 49_000 }],
    )
    const b = await spend(
      chain,
      from,
      [{ ...funded, value: 50_000 }],
      [{ script: walletOf('p2tr', 'b').script, value: 48_000 }],
    )
    expect((await post(chain, a)).status).toBe(200)
    expect(await post(chain, b)).toEqual({
      status: 400,
      text: 'sendrawtransaction RPC error: {"code":-26,"message":"txn-mempool-conflict"}',
    })
    chain.mine(1)
    expect((await post(chain, b)).text).toContain('bad-txns-inputs-missingorspent')
  })

  it('refuses unknown inputs', async () => {
    const from = walletOf('p2wpkh', 'unknown')
    const hex = await spend(
      chain,
      from,
      [{ txid: '11'.repeat(32), vout: 0, value: 10_000 }],
      [{ script: from.script, value: 9_000 }],
    )
    expect((await post(chain, hex)).text).toContain('bad-txns-inputs-missingorspent')
  })

  it('refuses an input listed twice, and testmempoolaccept refuses it alike', async () => {
    const from = walletOf('p2wpkh', 'duplicate')
    const funded = chain.fund(from.address, 20_000)
    const tx = bitcoin.Transaction.fromHex(
      await spend(chain, from, [{ ...funded, value: 20_000 }], [{ script: from.script, value: 9_000 }]),
    )
    tx.ins.push({ ...tx.ins[0]!, witness: [...tx.ins[0]!.witness] })
    expect(chain.chain.test(tx.toBuffer())).toEqual({ allowed: false, reason: 'bad-txns-inputs-duplicate' })
    expect((await post(chain, tx.toHex())).text).toContain('bad-txns-inputs-duplicate')
  })

  for (const kind of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const) {
    it(`refuses a ${kind} spend with one flipped signature bit`, async () => {
      const from = walletOf(kind, `flip ${kind}`)
      const funded = chain.fund(from.address, 20_000)
      const hex = await spend(
        chain,
        from,
        [{ ...funded, value: 20_000 }],
        [{ script: from.script, value: 19_000 }],
      )
      const tx = bitcoin.Transaction.fromHex(hex)
      if (kind === 'p2pkh') {
        const [signature, publicKey] = bitcoin.script.decompile(tx.ins[0]!.script) as Uint8Array[]
        signature![10]! ^= 1
        tx.ins[0]!.script = bitcoin.script.compile([signature!, publicKey!])
      } else {
        tx.ins[0]!.witness[0]![10]! ^= 1
      }
      const result = await post(chain, tx.toHex())
      expect(result.status).toBe(400)
      expect(result.text).toContain('mandatory-script-verify-flag-failed')
      expect(chain.chain.balance(from.address)).toBe(20_000n)
    })
  }

  it('refuses a signature made for another amount (the BIP-143 amount commitment)', async () => {
    const from = walletOf('p2wpkh', 'amount lie')
    const funded = chain.fund(from.address, 30_000)
    const hex = await spend(
      chain,
      from,
      [{ ...funded, value: 31_000 }],
      [{ script: from.script, value: 29_000 }],
    )
    expect((await post(chain, hex)).text).toContain('mandatory-script-verify-flag-failed')
  })

  it('refuses a fee below the minimum relay fee and outputs below dust', async () => {
    const from = walletOf('p2wpkh', 'fee')
    const funded = chain.fund(from.address, 40_000)
    const cheap = await spend(
      chain,
      from,
      [{ ...funded, value: 40_000 }],
      [{ script: from.script, value: 39_950 }],
    )
    expect((await post(chain, cheap)).text).toContain('min relay fee not met')
    const dusty = await spend(
      chain,
      from,
      [{ ...funded, value: 40_000 }],
      [
        { script: from.script, value: 38_000 },
        { script: walletOf('p2wpkh', 'dust').script, value: 293 },
      ],
    )
    expect((await post(chain, dusty)).text).toContain('"dust"')
    const exactlyDust = await spend(
      chain,
      from,
      [{ ...funded, value: 40_000 }],
      [
        { script: from.script, value: 38_000 },
        { script: walletOf('p2wpkh', 'dust').script, value: 294 },
      ],
    )
    expect((await post(chain, exactlyDust)).status).toBe(200)
  })

  it('accepts a chain of unconfirmed spends and an OP_RETURN memo', async () => {
    const from = walletOf('p2tr', 'chain')
    const funded = chain.fund(from.address, 60_000)
    const first = await spend(
      chain,
      from,
      [{ ...funded, value: 60_000 }],
      [{ script: from.script, value: 59_000 }],
    )
    const firstId = (await post(chain, first)).text
    const memo = bitcoin.payments.embed({ data: [new TextEncoder().encode('charley loves he')] }).output!
    const second = await spend(
      chain,
      from,
      [{ txid: firstId, vout: 0, value: 59_000 }],
      [
        { script: from.script, value: 58_000 },
        { script: memo, value: 0 },
      ],
    )
    expect((await post(chain, second)).status).toBe(200)
  })

  it('serves fee estimates, the tip and a scripthash view', async () => {
    const fees = await (await fetch(`${chain.url}/fee-estimates`)).json()
    expect(fees).toMatchObject({ '1': 2, '6': 2, '144': 2 })
    expect(Number(await (await fetch(`${chain.url}/blocks/tip/height`)).text())).toBe(chain.chain.height)
    const from = walletOf('p2wpkh', 'scripthash')
    chain.fund(from.address, 12_345)
    const scripthash = Buffer.from(sha256(from.script)).toString('hex')
    const utxos = (await (await fetch(`${chain.url}/scripthash/${scripthash}/utxo`)).json()) as {
      value: number
    }[]
    expect(utxos.map((u: { value: number }) => u.value)).toEqual([12_345])
    expect((await fetch(`${chain.url}/tx/${'00'.repeat(32)}/hex`)).status).toBe(404)
    expect((await fetch(`${chain.url}/address/not-an-address/utxo`)).status).toBe(400)
  })

  it('injects broadcast faults once each', async () => {
    const from = walletOf('p2wpkh', 'faults')
    const funded = chain.fund(from.address, 70_000)
    const hex = await spend(
      chain,
      from,
      [{ ...funded, value: 70_000 }],
      [{ script: from.script, value: 69_000 }],
    )
    chain.injectBroadcastFault({ kind: 'http500' })
    expect((await post(chain, hex)).status).toBe(500)
    chain.injectBroadcastFault({ kind: 'wrongTxid' })
    const echoed = await post(chain, hex)
    expect(echoed.status).toBe(200)
    expect(echoed.text).not.toBe(bitcoin.Transaction.fromHex(hex).getId())
  })
})
