import { readFileSync } from 'node:fs'
import * as btc from '@scure/btc-signer'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import * as tiny from 'tiny-secp256k1'
import { beforeAll, describe, expect, it } from 'vitest'
import { BIP122_REGTEST } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { writeSignatures } from '../../src/bip122/psbt/apply.js'
import { psbtFromUnsignedTransaction } from '../../src/bip122/psbt/build.js'
import { decodePsbt } from '../../src/bip122/psbt/decode.js'
import { signInputs } from '../../src/bip122/transaction/sign.js'
import { parseTransaction, type Transaction, txidToHash } from '../../src/bip122/transaction/transaction.js'
import type { Account, AccountAddress, Purpose } from '../../src/bip122/types.js'
import { WalletRpcError } from '../../src/core/errors.js'
import { mnemonic, network } from './psbtFixture.js'

const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/bip122/bip174-bip371-psbt-vectors.json', import.meta.url), 'utf8'),
) as Record<'bip174Invalid' | 'bip371Invalid' | 'bip371Valid', { case: string; base64: string }[]>

describe('PSBT decoding against the BIP-174 and BIP-371 vectors', () => {
  for (const vector of [...vectors.bip174Invalid, ...vectors.bip371Invalid]) {
    it(`refuses: ${vector.case}`, async () => {
      let caught: unknown
      try {
        await decodePsbt(vector.base64)
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(WalletRpcError)
      expect((caught as WalletRpcError).code).toBe(-32602)
      expect((caught as WalletRpcError).data).toMatchObject({ path: 'psbt' })
    })
  }
  for (const vector of vectors.bip371Valid) {
    it(`accepts: ${vector.case}`, async () => {
      const decoded = await decodePsbt(vector.base64)
      expect(decoded.tx.inputs).toHaveLength(1)
      expect(decoded.prevoutSources).toEqual(['witnessUtxo'])
    })
  }

  it('refuses non-canonical base64 and oversized PSBTs', async () => {
    const valid = vectors.bip371Valid[0]!.base64
    const reason = async (run: () => Promise<unknown>) => {
      try {
        await run()
      } catch (error) {
        return ((error as WalletRpcError).data as { reason: string }).reason
      }
      return 'did not throw'
    }
    expect(await reason(() => decodePsbt('cHNidP8BAB=='))).toBe('PSBT is not canonical base64')
    expect(await reason(() => decodePsbt(valid, { maxBytes: 100, maxInputs: 10, maxOutputs: 10 }))).toBe(
      'PSBT larger than 100 bytes',
    )
    expect(await reason(() => decodePsbt(valid, { maxBytes: 1e6, maxInputs: 0, maxOutputs: 10 }))).toBe(
      'PSBT has more than 0 inputs',
    )
  })
})

describe('PSBT decoding: parent transactions (nonWitnessUtxo)', () => {
  // One segwit parent with two outputs, spent by both inputs of the PSBT.
  const parent = new bitcoin.Transaction()
  parent.version = 2
  parent.addInput(new Uint8Array(32).fill(5), 0)
  parent.setWitness(0, [new Uint8Array(72).fill(1), new Uint8Array(33).fill(2)])
  parent.addOutput(Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(7)), 1000n)
  parent.addOutput(Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(8)), 2000n)
  const psbtWith = (first: Uint8Array, second: Uint8Array) => {
    const hash = txidToHash(parent.getId())
    const input = (vout: number) => ({
      txid: hash,
      vout,
      sequence: 0,
      scriptSig: new Uint8Array(0),
      witness: [],
    })
    const psbt = psbtFromUnsignedTransaction({
      version: 2,
      locktime: 0,
      inputs: [input(0), input(1)],
      outputs: [{ script: Uint8Array.of(0x51), value: 2500n }],
    })
    psbt.data.updateInput(0, { nonWitnessUtxo: first })
    psbt.data.updateInput(1, { nonWitnessUtxo: second })
    return psbt.toBase64()
  }
  const parentBytes = parent.toBuffer()

  it('two inputs spending one parent: each gets its own output', async () => {
    const decoded = await decodePsbt(psbtWith(parentBytes, Uint8Array.from(parentBytes)))
    expect(decoded.prevouts).toEqual([
      { script: parent.outs[0]!.script, value: 1000n },
      { script: parent.outs[1]!.script, value: 2000n },
    ])
    expect(decoded.prevoutSources).toEqual(['nonWitnessUtxo', 'nonWitnessUtxo'])
  })

  it('the same parent with other witnesses (same txid) is checked on its own and accepted', async () => {
    const rewitnessed = parent.clone()
    rewitnessed.setWitness(0, [new Uint8Array(71).fill(3)])
    const decoded = await decodePsbt(psbtWith(parentBytes, rewitnessed.toBuffer()))
    expect(decoded.prevouts[1]).toEqual({ script: parent.outs[1]!.script, value: 2000n })
  })

  it('a second input carrying another transaction is refused, though the first parent was right', async () => {
    const other = parent.clone()
    other.locktime = 1
    await expect(decodePsbt(psbtWith(parentBytes, other.toBuffer()))).rejects.toMatchObject({
      code: -32602,
      data: { path: 'psbt', reason: 'input 1: nonWitnessUtxo is not the transaction it spends' },
    })
  })
})

// ---- our signing path against bitcoinjs-lib's and @scure/btc-signer's ------------------------------------

const bip32 = BIP32Factory(tiny)
const root = bip32.fromSeed(mnemonicToSeedSync(mnemonic))
let account: Account

beforeAll(async () => {
  const namespace = bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_REGTEST]: {} } })
  account = (await namespace.wallet.chain(BIP122_REGTEST)).account
})

/** The private key of `owner`, derived independently with bip32 from the mnemonic. */
function privateKeyOf(owner: AccountAddress): Uint8Array {
  return root.derivePath(owner.path!).privateKey!
}

function unsignedTransaction(count: number, owners: AccountAddress[]): Transaction {
  return {
    version: 2,
    locktime: 0,
    inputs: Array.from({ length: count }, (_, i) => ({
      txid: Uint8Array.from({ length: 32 }, (_, j) => (i * 31 + j * 7 + 1) & 0xff),
      vout: i % 3,
      sequence: 0xfffffffd,
      scriptSig: new Uint8Array(0),
      witness: [],
    })),
    outputs: [
      { script: owners[0]!.scriptPubKey, value: 12_345n },
      { script: Uint8Array.from([0x6a, 0x02, 0xca, 0xfe]), value: 0n },
    ],
  }
}

describe('linear PSBT building and signing agree with bitcoinjs-lib and @scure/btc-signer', () => {
  const kinds: Array<[string, Purpose]> = [
    ['P2PKH', 44],
    ['P2SH-P2WPKH', 49],
    ['P2WPKH', 84],
    ['P2TR', 86],
  ]
  for (const [name, purpose] of kinds) {
    it(`${name}: byte-identical PSBT, byte-identical signatures, same signed transaction`, async () => {
      const owners = await Promise.all([0, 1, 2].map((index) => account.address(purpose, 0, index)))
      const tx = unsignedTransaction(12, owners)
      const prevouts = tx.inputs.map((_, i) => ({
        script: owners[i % 3]!.scriptPubKey,
        value: BigInt(10_000 + i),
      }))
      const parents = tx.inputs.map((_, i) =>
        bitcoin.Transaction.fromHex(
          // A parent whose output `vout` pays the prevout (only P2PKH needs it; the hash then names the input).
          parentHex(prevouts[i]!, tx.inputs[i]!.vout),
        ),
      )
      if (purpose === 44) {
        tx.inputs.forEach((input, i) => {
          input.txid.set(parents[i]!.getHash())
        })
      }
      const update = (i: number) => {
        const owner = owners[i % 3]!
        const fields: Parameters<bitcoin.Psbt['updateInput']>[1] =
          purpose === 44
            ? { nonWitnessUtxo: parents[i]!.toBuffer() }
            : { witnessUtxo: { script: prevouts[i]!.script, value: prevouts[i]!.value } }
        if (purpose === 49) fields.redeemScript = owner.redeemScript!
        if (purpose === 86) fields.tapInternalKey = owner.internalKey!
        return fields
      }

      // Reference: bitcoinjs-lib's own addInput/addOutput and signInput.
      const reference = new bitcoin.Psbt({ network })
      tx.inputs.forEach((input, i) => {
        reference.addInput({ hash: input.txid, index: input.vout, sequence: input.sequence, ...update(i) })
      })
      for (const output of tx.outputs) reference.addOutput(output)

      // Ours: the minimal BIP-174 buffer, then updateInput.
      const ours = psbtFromUnsignedTransaction(tx)
      tx.inputs.forEach((_, i) => {
        ours.updateInput(i, update(i))
      })
      for (let i = 0; i < tx.outputs.length; i++) ours.data.outputs[i]!.unknownKeyVals ??= []
      expect(ours.toBase64()).toBe(reference.toBase64())

      const zeros = new Uint8Array(32)
      tx.inputs.forEach((_, i) => {
        const owner = owners[i % 3]!
        const privateKey = privateKeyOf(owner)
        const signer =
          purpose === 86
            ? tweakedSigner(privateKey, owner.publicKey, zeros)
            : { publicKey: owner.publicKey, sign: (hash: Uint8Array) => tiny.sign(hash, privateKey) }
        reference.signInput(i, signer)
      })
      const decoded = await decodePsbt(ours.toBase64())
      const signatures = await signInputs(
        account,
        parseTransaction(decoded.psbt.data.globalMap.unsignedTx.toBuffer()),
        decoded.prevouts,
        tx.inputs.map((_, index) => ({ index, owner: owners[index % 3]!, hashType: purpose === 86 ? 0 : 1 })),
        { auxRand: zeros },
      )
      writeSignatures(decoded.psbt, signatures)
      expect(decoded.psbt.toBase64()).toBe(reference.toBase64())

      // A third implementation finalizes our PSBT: scure must produce bitcoinjs-lib's signed transaction.
      reference.finalizeAllInputs()
      const expected = reference.extractTransaction().toHex()
      const scure = btc.Transaction.fromPSBT(decoded.psbt.toBuffer(), { allowLegacyWitnessUtxo: true })
      scure.finalize()
      expect(scure.hex).toBe(expected)
    })
  }
})

function parentHex(prevout: { script: Uint8Array; value: bigint }, vout: number): string {
  const parent = new bitcoin.Transaction()
  parent.version = 2
  parent.addInput(new Uint8Array(32).fill(9), 0)
  for (let i = 0; i <= vout; i++) {
    parent.addOutput(i === vout ? prevout.script : Uint8Array.of(0x51), i === vout ? prevout.value : 1n)
  }
  return parent.toHex()
}

function tweakedSigner(privateKey: Uint8Array, publicKey: Uint8Array, auxRand: Uint8Array) {
  const even = publicKey[0] === 3 ? tiny.privateNegate(privateKey) : privateKey
  const tweaked = tiny.privateAdd(even, bitcoin.crypto.taggedHash('TapTweak', publicKey.subarray(1)))!
  return {
    publicKey: Uint8Array.from([2, ...tiny.xOnlyPointFromScalar(tweaked)]),
    sign: (hash: Uint8Array) => tiny.sign(hash, tweaked),
    signSchnorr: (hash: Uint8Array) => tiny.signSchnorr(hash, tweaked, auxRand),
  }
}

describe('hostile PSBT bytes never crash the decoder', () => {
  const valid = Buffer.from(vectors.bip371Valid[1]!.base64, 'base64')
  const judge = async (bytes: Uint8Array) => {
    try {
      await decodePsbt(Buffer.from(bytes).toString('base64'))
    } catch (error) {
      // Only a clean -32602 naming the field, never a TypeError or RangeError escaping.
      expect(error).toBeInstanceOf(WalletRpcError)
      expect((error as WalletRpcError).code).toBe(-32602)
      expect((error as WalletRpcError).data).toMatchObject({ path: 'psbt' })
    }
  }
  it('random bytes after the magic', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), (tail) =>
        judge(Uint8Array.from([0x70, 0x73, 0x62, 0x74, 0xff, ...tail])),
      ),
      { numRuns: 300 },
    )
  })
  it('single-byte mutations and truncations of a valid taproot PSBT', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(valid.length - 1),
        fc.integer({ min: 1, max: 255 }),
        fc.nat(valid.length),
        async (at, xor, cut) => {
          const mutated = Uint8Array.from(valid)
          mutated[at]! ^= xor
          await judge(mutated)
          await judge(valid.subarray(0, cut))
        },
      ),
      { numRuns: 300 },
    )
  })
})
