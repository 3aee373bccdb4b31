import { secp256k1 } from '@noble/curves/secp256k1.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import * as btc from '@scure/btc-signer'
import {
  Address,
  beginCell,
  Cell,
  external,
  internal,
  loadMessage,
  loadStateInit,
  type MessageRelaxed,
  storeMessage,
} from '@ton/core'
import { mnemonicToWalletKey } from '@ton/crypto'
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton'
import nacl from 'tweetnacl'
import { type Hex, keccak256, parseTransaction, recoverTransactionAddress } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  type Case,
  chainCases,
  nodeOutcome,
  type Outcome,
  regtestNetwork,
  sendingMethods,
} from './vectorCases.js'

/**
 * The cases on a recorded chain the browser and Hermes suites compare with Node (vectorCases.ts, chainCases)
 * are only as good as Node's answers: here each broadcast Node made over the recorded chain is checked once
 * with implementations independent of the wallet's code — the TON external message rebuilt by @ton/ton's own
 * v4R2/v5R1 contracts and its signature checked with tweetnacl, the EVM transaction parsed and its sender
 * recovered by viem, the Bitcoin transaction parsed by @scure/btc-signer and each input's signature checked
 * with @noble/curves.
 */
describe('sending methods over a recorded chain, in Node, cross-checked', () => {
  const cases = chainCases()
  let node: Outcome
  const sent = (method: string) =>
    cases
      .map((testCase, i) => ({ testCase, result: node.results[i]! }))
      .filter(
        ({ testCase, result }) => testCase.request.method === method && 'result' in (result.answer as object),
      )

  beforeAll(async () => {
    node = await nodeOutcome(cases)
  })

  it('every case answers as its vector expects: a verified result and one broadcast, or a refusal and none', () => {
    expect(node.internalErrors).toEqual([])
    const methods = new Set(cases.map((testCase) => testCase.request.method))
    expect([...methods].sort()).toEqual([...sendingMethods, 'getAccountAddresses', 'signPsbt'].sort())
    cases.forEach((testCase, i) => {
      const { answer, verdict, broadcasts } = node.results[i]!
      const broadcasting =
        sendingMethods.includes(testCase.request.method) ||
        (testCase.request.params as { broadcast?: boolean }).broadcast === true
      if ('error' in (answer as object)) {
        expect(broadcasts, testCase.name).toEqual([])
      } else {
        expect(verdict, testCase.name).toEqual({ valid: true })
        expect(broadcasts, testCase.name).toHaveLength(broadcasting ? 1 : 0)
      }
    })
    expect(cases.filter((_, i) => node.results[i]!.broadcasts?.length === 1).length).toBeGreaterThanOrEqual(
      14,
    )
  })

  it('ton_sendMessage: the external message @ton/ton builds for the same transfer, signed as tweetnacl verifies', async () => {
    const checked = sent('ton_sendMessage')
    expect(checked.length).toBeGreaterThanOrEqual(8)
    for (const { testCase, result } of checked) {
      const boc = (result.answer as { result: string }).result
      expect(result.broadcasts).toEqual([boc])
      const config = testCase.config as { tonMnemonic: string; tonWallet: 'v4r2' | 'v5r1'; now: number }
      const key = await mnemonicToWalletKey(config.tonMnemonic.split(' '))
      const wallet =
        config.tonWallet === 'v4r2'
          ? WalletContractV4.create({ workchain: 0, publicKey: key.publicKey })
          : WalletContractV5R1.create({ workchain: 0, publicKey: key.publicKey })
      const chain = testCase.chain as { state: string; seqno: number }
      const message = loadMessage(Cell.fromBase64(boc).beginParse())
      expect(message.info.type).toBe('external-in')
      expect(message.info.dest?.toString()).toBe(wallet.address.toString())
      // The wallet's StateInit rides along exactly while the account is not deployed.
      expect(message.init?.code?.equals(wallet.init.code) ?? false).toBe(chain.state !== 'active')

      const request = tonRequest(testCase.request.params)
      const validUntil = Math.min(request.validUntil ?? config.now + 300, config.now + 600)
      const transfer = {
        seqno: chain.seqno,
        secretKey: key.secretKey,
        sendMode: 3,
        timeout: validUntil,
        messages: request.messages,
      }
      // Both contracts take these signed-transfer arguments and return the body Cell; their generic
      // signatures differ, so TypeScript cannot call the union without this shared type.
      const body = (wallet as { createTransfer: (args: typeof transfer) => Cell }).createTransfer(transfer)
      const expected = beginCell()
        .store(
          storeMessage(
            external({
              to: wallet.address,
              body,
              ...(chain.state === 'active' ? {} : { init: wallet.init }),
            }),
          ),
        )
        .endCell()
      expect(Cell.fromBase64(boc).equals(expected), testCase.name).toBe(true)

      // The signature signs the body without it: it comes first in v4R2, last in v5R1.
      const slice = message.body.beginParse()
      const signedBits = slice.remainingBits - 512
      const signatureFirst = config.tonWallet === 'v4r2'
      const before = signatureFirst ? slice.loadBuffer(64) : undefined
      const signed = beginCell().storeBits(slice.loadBits(signedBits))
      const signature = before ?? slice.loadBuffer(64)
      for (const ref of message.body.refs) signed.storeRef(ref)
      expect(nacl.sign.detached.verify(signed.endCell().hash(), signature, key.publicKey)).toBe(true)
    }
  })

  it('eth_sendTransaction and eth_sendRawTransaction: viem parses the broadcast, recovers its sender and hash', async () => {
    const checked = [...sent('eth_sendTransaction'), ...sent('eth_sendRawTransaction')]
    expect(checked.length).toBeGreaterThanOrEqual(3)
    const types = new Set<string>()
    for (const { testCase, result } of checked) {
      const raw = result.broadcasts![0] as Hex
      expect(keccak256(raw)).toBe((result.answer as { result: string }).result)
      const parsed = parseTransaction(raw)
      expect(parsed.chainId).toBe(31337)
      types.add(parsed.type ?? 'legacy')
      const sender = await recoverTransactionAddress({ serializedTransaction: raw as never })
      if (testCase.request.method === 'eth_sendRawTransaction') {
        expect(raw).toBe((testCase.request.params as string[])[0])
        continue
      }
      const [request] = testCase.request.params as [Record<string, string>]
      expect(sender).toBe(request.from)
      expect(parsed.to?.toLowerCase()).toBe(request.to!.toLowerCase())
      expect(parsed.value).toBe(BigInt(request.value!))
      expect(parsed.nonce).toBe(7) // the recorded chain's pending nonce
      expect(parsed.data ?? '0x').toBe(request.data ?? '0x')
      if (request.gasPrice !== undefined) {
        expect(parsed.type).toBe('legacy')
        expect(parsed.gasPrice).toBe(BigInt(request.gasPrice))
        expect(parsed.gas).toBe(BigInt(request.gas!))
      } else {
        // Base fee 1 gwei, priority 1 gwei: EIP-1559 with max fee 2 × base + priority.
        expect(parsed).toMatchObject({
          type: 'eip1559',
          maxPriorityFeePerGas: 10n ** 9n,
          maxFeePerGas: 3n * 10n ** 9n,
        })
      }
    }
    expect([...types].sort()).toEqual(['eip1559', 'legacy'])
  })

  it('signPsbt with broadcast: what went to the chain is the signed PSBT, final, under the txid answered', () => {
    const checked = sent('signPsbt')
    expect(checked.length).toBe(1)
    for (const { result } of checked) {
      const { psbt, txid } = (result.answer as { result: { psbt: string; txid: string } }).result
      const signed = btc.Transaction.fromPSBT(Uint8Array.from(Buffer.from(psbt, 'base64')))
      if (!signed.isFinal) signed.finalize()
      expect(bytesToHex(signed.extract())).toBe(result.broadcasts![0])
      expect(signed.id).toBe(txid)
    }
  })

  it('sendTransfer: @scure/btc-signer parses the broadcast, @noble/curves verifies every input (legacy and BIP-143 sighash)', () => {
    const checked = sent('sendTransfer')
    expect(checked.length).toBeGreaterThanOrEqual(3)
    const inputTypes = new Set<string>()
    for (const { testCase, result } of checked) {
      const raw = hexToBytes(result.broadcasts![0]!)
      const tx = btc.Transaction.fromRaw(raw, { allowUnknownOutputs: true })
      expect(tx.id).toBe((result.answer as { result: { txid: string } }).result.txid)
      const params = testCase.request.params as Record<string, string | number>
      const funded = (testCase.chain as Extract<Case['chain'], { kind: 'esplora' }>).funded
      const recipient = btc.OutScript.encode(
        btc.Address(regtestNetwork).decode(String(params.recipientAddress)),
      )
      expect(bytesToHex(tx.getOutput(0).script!)).toBe(bytesToHex(recipient))
      expect(tx.getOutput(0).amount).toBe(BigInt(params.amount!))
      if (params.memo !== undefined)
        expect(bytesToHex(tx.getOutput(1).script!)).toBe(
          `6a${(String(params.memo).length / 2).toString(16).padStart(2, '0')}${params.memo}`,
        )
      const change = tx.getOutput(tx.outputsLength - 1)
      if (params.changeAddress !== undefined)
        expect(bytesToHex(change.script!)).toBe(
          bytesToHex(btc.OutScript.encode(btc.Address(regtestNetwork).decode(String(params.changeAddress)))),
        )
      let spent = 0n
      for (let index = 0; index < tx.inputsLength; index++) {
        const input = tx.getInput(index)
        const coin = funded.find(({ txid, vout }) => txid === bytesToHex(input.txid!) && vout === input.index)
        expect(coin, 'spends a recorded coin').toBeDefined()
        spent += BigInt(coin!.value)
        const prevScript = btc.OutScript.encode(btc.Address(regtestNetwork).decode(coin!.address))
        const { signature, publicKey, sighash } = signedInput(tx, index, prevScript, BigInt(coin!.value))
        inputTypes.add(btc.OutScript.decode(prevScript).type)
        expect(signature.at(-1)).toBe(btc.SigHash.ALL)
        expect(
          secp256k1.verify(signature.subarray(0, -1), sighash, publicKey, { prehash: false, format: 'der' }),
        ).toBe(true)
      }
      let paid = 0n
      for (let index = 0; index < tx.outputsLength; index++) paid += tx.getOutput(index).amount!
      const fee = spent - paid
      // A fee near the recorded 10 sat/vB (6 blocks) on a ~141-vbyte transfer, never a lost change output.
      expect(fee > 0n && fee < 5_000n, `fee ${fee}`).toBe(true)
    }
    expect([...inputTypes].sort()).toEqual(['pkh', 'sh', 'wpkh'])
  })
})

/**
 * The signature, public key and signed hash of a P2PKH (legacy sighash), P2SH-P2WPKH or P2WPKH (BIP-143) input,
 * its key checked against the script it spends.
 */
function signedInput(
  tx: btc.Transaction,
  index: number,
  prevScript: Uint8Array,
  amount: bigint,
): { signature: Uint8Array; publicKey: Uint8Array; sighash: Uint8Array } {
  const input = tx.getInput(index)
  const spent = btc.OutScript.decode(prevScript)
  const [signature, publicKey] =
    spent.type === 'pkh'
      ? (btc.Script.decode(input.finalScriptSig!) as Uint8Array[])
      : (input.finalScriptWitness! as Uint8Array[])
  const keyHash = ripemd160(sha256(publicKey!))
  const scriptCode = btc.OutScript.encode({ type: 'pkh', hash: keyHash })
  if (spent.type === 'pkh') {
    expect(bytesToHex(spent.hash)).toBe(bytesToHex(keyHash))
    // btc-signer keeps its legacy sighash private in the types, not at run time.
    const legacy = tx as unknown as {
      preimageLegacy(i: number, script: Uint8Array, type: number): Uint8Array
    }
    return {
      signature: signature!,
      publicKey: publicKey!,
      sighash: legacy.preimageLegacy(index, prevScript, btc.SigHash.ALL),
    }
  }
  const program = btc.OutScript.encode({ type: 'wpkh', hash: keyHash })
  if (spent.type === 'sh') {
    // The scriptSig pushes the P2WPKH program as the redeem script, whose hash is the P2SH's.
    expect(bytesToHex(input.finalScriptSig!)).toBe(`16${bytesToHex(program)}`)
    expect(bytesToHex(spent.hash)).toBe(bytesToHex(ripemd160(sha256(program))))
  } else {
    expect(spent.type).toBe('wpkh')
    expect(bytesToHex(prevScript)).toBe(bytesToHex(program))
  }
  return {
    signature: signature!,
    publicKey: publicKey!,
    sighash: tx.preimageWitnessV0(index, scriptCode, btc.SigHash.ALL, amount),
  }
}

/** The TON Connect request as @ton/ton takes it: the messages, and the deadline in seconds. */
function tonRequest(params: unknown): { validUntil: number | undefined; messages: MessageRelaxed[] } {
  const request = (Array.isArray(params) ? params[0] : params) as {
    valid_until?: number
    validUntil?: number
    messages: Array<{ address: string; amount: string | number; payload?: string; stateInit?: string }>
  }
  const deadline = request.valid_until ?? request.validUntil
  return {
    validUntil: deadline === undefined ? undefined : deadline > 1e10 ? Math.floor(deadline / 1000) : deadline,
    messages: request.messages.map((message) =>
      internal({
        to: Address.parse(message.address),
        value: BigInt(message.amount),
        bounce: Address.parseFriendly(message.address).isBounceable,
        ...(message.payload === undefined ? {} : { body: Cell.fromBase64(message.payload) }),
        ...(message.stateInit === undefined
          ? {}
          : { init: loadStateInit(Cell.fromBase64(message.stateInit).beginParse()) }),
      }),
    ),
  }
}
