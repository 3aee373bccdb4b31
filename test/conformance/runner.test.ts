import * as ecc from '@bitcoinerlab/secp256k1'
import { schnorr } from '@noble/curves/secp256k1.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import { describe, expect, it } from 'vitest'
import {
  asHandlerObject,
  type CaseResult,
  createBuiltinHandler,
  type HandlerFactory,
  loadVectors,
  runConformance,
} from '../../src/conformance/index.js'
import {
  compactSize,
  decodeAddress,
  serializeWithoutWitness,
  sha256d,
  sighashTaproot,
} from '../../src/verify/internal/bitcoin.js'
import { bip322MessageHash, bip322ToSpend } from '../../src/verify/signMessage.js'

type Input = Parameters<ReturnType<typeof asHandlerObject>['handle']>[0]
type Tamper = (input: Input, response: Record<string, unknown>, mnemonic: string | undefined) => unknown

/** The built-in handler with its answers rewritten: how a broken wallet behaves. */
function broken(tamper: Tamper): HandlerFactory {
  return async (config) => {
    const inner = asHandlerObject(await createBuiltinHandler(config))
    return {
      ...inner,
      handle: async (input) =>
        tamper(input, (await inner.handle(input)) as Record<string, unknown>, config.mnemonic),
    }
  }
}

const failing = (results: CaseResult[]) =>
  results.filter((r) => r.outcome === 'fail').map((r) => r.label.replace(/ #\d+ /, ': '))

/** BIP-322 simple signature for a P2TR address made with the *internal* key, i.e. without the BIP-86 tweak. */
function untweakedTaprootSignature(mnemonic: string, message: string): string {
  const node = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(mnemonic)).derivePath("m/86'/0'/0'/0/0")
  const address = decodeAddress(btc.p2tr(Uint8Array.from(node.publicKey).slice(1)).address)
  const toSpend = bip322ToSpend(bip322MessageHash(message), address.script)
  const toSign = {
    version: 0,
    inputs: [
      {
        txid: sha256d(serializeWithoutWitness(toSpend)),
        vout: 0,
        scriptSig: new Uint8Array(0),
        sequence: 0,
        witness: [],
      },
    ],
    outputs: [{ amount: 0n, script: Uint8Array.of(0x6a) }],
    lockTime: 0,
    hasWitness: true,
  }
  const digest = sighashTaproot(toSign, 0, toSpend.outputs, 0)
  const signature = schnorr.sign(digest, Uint8Array.from(node.privateKey!))
  return hex.encode(concatBytes(compactSize(1), compactSize(64), signature))
}

describe('wallet-rpc conformance', () => {
  it('loads only conformance files, each with a source and a licence', () => {
    const vectors = loadVectors()
    expect(vectors.length).toBe(20) // 14 + the six solana methods
    const cases = vectors.reduce((n, v) => n + v.vector.cases.length, 0)
    expect(cases).toBeGreaterThanOrEqual(60)
    for (const { vector } of vectors) expect(vector.source.length * vector.license.length).toBeGreaterThan(0)
    const invalid = vectors.flatMap((v) => v.vector.cases).filter((c) => c.expect.error !== undefined)
    expect(invalid.length).toBeGreaterThan(30)
  })

  it('the built-in handler passes every vector, local chains included', { timeout: 240_000 }, async () => {
    const summary = await runConformance()
    expect(failing(summary.results)).toEqual([])
    expect(summary.pending).toBe(0)
    expect(summary.passed).toBe(summary.results.length)
  })

  it('fails taproot signMessage answered with an untweaked key', { timeout: 60_000 }, async () => {
    const factory = broken((input, response, mnemonic) => {
      const params = input.request.params as { address?: string; message?: string; protocol?: string }
      if (
        input.request.method !== 'signMessage' ||
        !params.address?.startsWith('bc1p') ||
        !('result' in response)
      ) {
        return response
      }
      const signature = untweakedTaprootSignature(mnemonic!, params.message!)
      return { ...response, result: { address: params.address, signature } }
    })
    const summary = await runConformance({
      createHandler: factory,
      filter: 'bip122/signMessage',
      skipChains: true,
    })
    expect(failing(summary.results)).toEqual([
      'bip122/signMessage: bip322, P2TR (BIP-86 tweaked key)',
      'bip122/signMessage: ecdsa on a taproot address: refused, or a valid answer',
    ])
  })

  it('fails a signPsbt that finalizes foreign inputs', { timeout: 60_000 }, async () => {
    const factory = broken((input, response) => {
      const result = response.result as { psbt?: string } | undefined
      if (input.request.method !== 'signPsbt' || result?.psbt === undefined) return response
      const tx = btc.Transaction.fromPSBT(base64.decode(result.psbt), { allowUnknownOutputs: true })
      const listed = new Set(
        (input.request.params as { signInputs: { index: number }[] }).signInputs.map((s) => s.index),
      )
      for (let index = 0; index < tx.inputsLength; index++) {
        if (listed.has(index)) continue
        try {
          tx.finalizeIdx(index)
        } catch {
          // Not finalizable (unsigned): a broken wallet leaves it.
        }
      }
      return { ...response, result: { ...result, psbt: base64.encode(tx.toPSBT()) } }
    })
    const summary = await runConformance({
      createHandler: factory,
      filter: 'bip122/signPsbt',
      skipChains: true,
    })
    expect(failing(summary.results)).toEqual([
      'bip122/signPsbt: multi-party: the foreign input, already signed, stays untouched',
    ])
  })

  it('fails a personal_sign that signs hex text as UTF-8, and a wallet that ignores the user', {
    timeout: 60_000,
  }, async () => {
    const textSigner: HandlerFactory = async (config) => {
      const inner = asHandlerObject(await createBuiltinHandler(config))
      return {
        handle: (input) => {
          if (input.request.method !== 'personal_sign') return inner.handle(input)
          const [message, address] = input.request.params as [string, string]
          // Sends the hex string itself as a UTF-8 message: what a naive signMessage({message}) does.
          const asText = `0x${Buffer.from(message, 'utf8').toString('hex')}`
          return inner.handle({ ...input, request: { ...input.request, params: [asText, address] } })
        },
      }
    }
    const summary = await runConformance({
      createHandler: textSigner,
      filter: 'eip155/personal_sign',
      skipChains: true,
    })
    expect(failing(summary.results)).toEqual([
      'eip155/personal_sign: hex message "hello world" (viem vector)',
      'eip155/personal_sign: binary 32-byte message (eth-sig-util "test II" message)',
      'eip155/personal_sign: message on the local chain id verifies',
      "eip155/personal_sign: account 1 (m/44'/60'/0'/0/1, anvil dev account #1)",
    ])
    const ignoresUser: HandlerFactory = (config) => createBuiltinHandler({ ...config, approve: 'all' })
    const rejected = await runConformance({
      createHandler: ignoresUser,
      filter: 'the user rejects',
      skipChains: true,
    })
    expect(rejected.failed).toBe(rejected.results.length - rejected.pending)
    expect(rejected.failed).toBeGreaterThanOrEqual(5)
  })

  it('fails a wallet that answers every error as -32000 (string errors), and one that throws', {
    timeout: 60_000,
  }, async () => {
    const stringErrors = broken((_input, response) =>
      'error' in response
        ? { ...response, error: { code: -32000, message: 'User rejected methods.' } }
        : response,
    )
    const summary = await runConformance({
      createHandler: stringErrors,
      filter: 'ton/ton_signData',
      skipChains: true,
    })
    expect(failing(summary.results)).toEqual([
      'ton/ton_signData: no verified origin',
      'ton/ton_signData: `from` another wallet',
      'ton/ton_signData: an unknown type',
      'ton/ton_signData: a cell that is not a BoC',
      'ton/ton_signData: the user rejects',
    ])
    const throwing: HandlerFactory = () => async () => {
      throw new Error('boom')
    }
    const thrown = await runConformance({
      createHandler: throwing,
      filter: 'eip155/eth_sign ',
      skipChains: true,
    })
    expect(thrown.failed).toBe(3)
    expect(thrown.results[0]?.reason).toBe('the handler threw: boom')
  })
})
