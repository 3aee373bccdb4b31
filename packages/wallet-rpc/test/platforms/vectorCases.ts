import * as ecc from '@bitcoinerlab/secp256k1'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import * as btc from '@scure/btc-signer'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import { networks } from 'bitcoinjs-lib'
import { expect } from 'vitest'
import { withFundingPsbt } from '../../src/conformance/runner.js'
import {
  type Expectation,
  type FundingStep,
  loadVectors,
  type VectorCase,
  type VectorFile,
} from '../../src/conformance/vectors.js'
// @ts-expect-error: plain JavaScript (webpack, Vite and Babel take it without a TypeScript loader)
import { runCases } from './fixtures/vectorWallet.js'

/** What the browser and Hermes suites run: every conformance case that needs no chain. */
export type Case = {
  name: string
  config: Record<string, unknown>
  request: { chainId: string; origin?: string; method: string; params?: unknown }
  verify?: { function: string; options?: Record<string, unknown> }
  /** The recorded chain the case's wallet reads and broadcasts to (fixtures/chainStubs.js). */
  chain?: RecordedChain
}

/** Fixed answers of a chain's public API, as fixtures/chainStubs.js serves them in every runtime. */
export type RecordedChain =
  | { kind: 'toncenter'; state: 'uninitialized' | 'active'; balance: string; seqno: number }
  | {
      kind: 'esplora'
      funded: Array<{ address: string; txid: string; vout: number; value: number; hex: string }>
      feeRates: Record<string, number>
    }
  | {
      kind: 'evm'
      chainId: number
      nonce: string
      balance: string
      blockGasLimit: string
      baseFeePerGas: string
      gasEstimate: string
      maxPriorityFeePerGas: string
      gasPrice: string
    }

/** Regtest's address parameters (bech32 `bcrt`, base58 0x6f/0xc4): bitcoinjs-lib's, the ones src/bip122 uses. */
export const regtestNetwork = networks.regtest

export type Outcome = {
  results: Array<{ answer: unknown; verdict?: { valid: boolean; reason?: string }; broadcasts?: string[] }>
  sessions: unknown[]
  backends: Record<string, string>
  /** Unexpected errors the wallet reported to `onError` (what -32603 hides from the dapp). */
  internalErrors: string[]
}

/** The verify check of an expectation, or of the first of its alternatives that has one. */
function verifyOf(expectation: Expectation): Pick<Case, 'verify'> {
  const verify = expectation.verify ?? expectation.oneOf?.find((alternative) => alternative.verify)?.verify
  return verify === undefined ? {} : { verify }
}

/** A conformance case as the vector wallet takes it. */
function asCase(vector: VectorFile, testCase: VectorCase): Case {
  return {
    name: `${vector.method}: ${testCase.name}`,
    config: { ...vector.wallet, ...testCase.wallet },
    request: testCase.request,
    ...verifyOf(testCase.expect),
  }
}

/** Every conformance case that needs no chain, as the vector wallet takes it. */
export function chainlessCases(): Case[] {
  return loadVectors().flatMap(({ vector }) =>
    vector.cases
      .filter((testCase) => testCase.chain === undefined && testCase.fund === undefined)
      .map((testCase) => asCase(vector, testCase)),
  )
}

/** The methods that read a chain before they sign and broadcast after. */
export const sendingMethods = [
  'ton_sendMessage',
  'eth_sendTransaction',
  'eth_sendRawTransaction',
  'sendTransfer',
]

/**
 * Every conformance case that needs a chain (the sending methods', a broadcasting signPsbt, a funded
 * account's getAccountAddresses), over a recorded chain in the state the conformance runner's local chain
 * would be in (the case's funding included), answered by a stub inside the runtime: transfers built,
 * signed and broadcast in every runtime, the broadcast bytes compared. Two more cases than the vectors: the
 * v4R2 transfer from a deployed wallet, so the seqno read runs too, and the first sendTransfer paid from
 * P2PKH, P2SH-P2WPKH and P2WPKH coins at once, so every payment input type is signed.
 */
export function chainCases(): Case[] {
  return loadVectors().flatMap(({ file, vector }) =>
    vector.cases
      // EIP-5792's wallet_* cases need EIP-7702 account code and eth_simulateV1, which the recorded chain does
      // not model: they run on anvil (test/eip155, the conformance runner), not here.
      .filter((testCase) => testCase.chain !== undefined && !vector.method.startsWith('wallet_'))
      .flatMap((vectorCase) => {
        const chain = recordedChain(vectorCase)
        const testCase =
          vectorCase.spendFunding !== undefined && chain.kind === 'esplora'
            ? withFundingPsbt(
                vectorCase,
                vectorCase.spendFunding,
                chain.funded.map((output) => ({ ...output, amount: BigInt(output.value) })),
              )
            : vectorCase
        const recorded = { ...asCase(vector, testCase), chain }
        if (vector.method === 'ton_sendMessage' && testCase.wallet?.tonWallet === 'v4r2') {
          const deployed = { ...chain, state: 'active', seqno: 5 } as RecordedChain
          return [recorded, { ...recorded, name: `${recorded.name}, deployed (seqno 5)`, chain: deployed }]
        }
        if (file.endsWith('sendTransfer.json') && vectorCase === vector.cases[0]) {
          const mixed = recordedChain({
            ...testCase,
            fund: everyPaymentType(String(recorded.config.mnemonic)),
          })
          return [
            recorded,
            { ...recorded, name: `${recorded.name}, from P2PKH, P2SH-P2WPKH and P2WPKH coins`, chain: mixed },
          ]
        }
        return [recorded]
      }),
  )
}

/** What the case's local chain holds when the runner sends the request, as fixed answers. */
function recordedChain(testCase: VectorCase): RecordedChain {
  const fund = testCase.fund ?? []
  if (testCase.chain === 'ton-sandbox') {
    // Funding an address that holds no contract leaves it uninitialized with that balance.
    const balance = fund.reduce((sum, step) => sum + BigInt(step.amount), 0n)
    return { kind: 'toncenter', state: 'uninitialized', balance: balance.toString(), seqno: 0 }
  }
  if (testCase.chain === 'bitcoin-regtest') {
    return {
      kind: 'esplora',
      funded: fund.map(fundingTransaction),
      feeRates: { '1': 20.5, '6': 10, '144': 1.01 },
    }
  }
  const gwei = 1_000_000_000n
  const hex = (value: bigint) => `0x${value.toString(16)}`
  return {
    kind: 'evm',
    chainId: 31337,
    nonce: hex(7n),
    balance: hex(10_000n * 10n ** 18n),
    blockGasLimit: hex(30_000_000n),
    baseFeePerGas: hex(gwei),
    gasEstimate: hex(21_000n),
    maxPriorityFeePerGas: hex(gwei),
    gasPrice: hex(2n * gwei),
  }
}

/**
 * 40 000 sats on the first receive address of each payment purpose (BIP-44 P2PKH, BIP-49 P2SH-P2WPKH, BIP-84
 * P2WPKH; coin type 1 off mainnet), derived with bip32: a 100 000 sat transfer must spend all three.
 */
function everyPaymentType(mnemonic: string): FundingStep[] {
  const root = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(mnemonic))
  const key = (purpose: number) => Uint8Array.from(root.derivePath(`m/${purpose}'/1'/0'/0/0`).publicKey)
  return [
    btc.p2pkh(key(44), regtestNetwork).address!,
    btc.p2sh(btc.p2wpkh(key(49), regtestNetwork), regtestNetwork).address!,
    btc.p2wpkh(key(84), regtestNetwork).address!,
  ].map((address) => ({ address, amount: '40000' }))
}

/** A confirmed regtest transaction paying `step.amount` sats to `step.address` (its output 0). */
function fundingTransaction(
  step: FundingStep,
  index: number,
): Extract<RecordedChain, { kind: 'esplora' }>['funded'][number] {
  const script = btc.OutScript.encode(btc.Address(regtestNetwork).decode(step.address))
  // Version 2, one input spending an outpoint of a made-up parent, one output, locktime 0.
  const raw = btc.RawTx.encode({
    version: 2,
    segwitFlag: false,
    inputs: [
      {
        txid: new Uint8Array(32).fill(index + 1),
        index: 0,
        finalScriptSig: new Uint8Array(),
        sequence: 0xffffffff,
      },
    ],
    outputs: [{ amount: BigInt(step.amount), script }],
    witnesses: undefined,
    lockTime: 0,
  })
  const txid = bytesToHex(sha256(sha256(raw)).reverse())
  return { address: step.address, txid, vout: 0, value: Number(step.amount), hex: bytesToHex(raw) }
}

/** What the browser and Hermes suites run: every chainless case, then every other one on a recorded chain. */
export function platformCases(): Case[] {
  return [...chainlessCases(), ...chainCases()]
}

/** The same cases answered in this Node process. */
export async function nodeOutcome(cases: Case[]): Promise<Outcome> {
  return (await runCases(cases)) as Outcome
}

/** The portable backends a runtime without Node, WASM, WebCrypto or injected crypto must have chosen (Hermes). */
export const portableBackends = {
  secp256k1: '@bitcoinerlab/secp256k1',
  ed25519: '@noble/curves',
  sha256: '@noble/hashes',
}

/** What a browser page or extension worker chooses: the portable ones, but WebCrypto's native Ed25519. */
export const browserBackends = { ...portableBackends, ed25519: 'WebCrypto' }

/**
 * Per case, whether another runtime's answer equals Node's. Its broadcasts must always equal Node's byte for
 * byte: every case on a recorded chain is deterministic (ECDSA with RFC 6979 nonces, Ed25519). The one
 * exception to byte equality is a BIP-340 signature, which carries fresh auxiliary randomness (as BIP-340
 * recommends): there the answers must be equal with their BIP-340 signatures zeroed, and the vector's
 * wallet-rpc/verify check must accept both.
 */
export function agreementWithNode(cases: Case[], outcome: Outcome, node: Outcome): boolean[] {
  return cases.map((_, i) => {
    const [theirs, ours] = [outcome.results[i], node.results[i]]
    if (theirs === undefined || ours === undefined) return false
    if (JSON.stringify(theirs.broadcasts) !== JSON.stringify(ours.broadcasts)) return false
    if (JSON.stringify(theirs) === JSON.stringify(ours)) return true
    const unsigned = withoutBip340Signatures(theirs.answer)
    return (
      unsigned !== undefined &&
      unsigned === withoutBip340Signatures(ours.answer) &&
      (theirs.verdict?.valid && ours.verdict?.valid) === true
    )
  })
}

/**
 * A bip122 answer with the BIP-340 signatures it carries zeroed, as JSON; undefined when it carries none (or
 * does not parse). They are the witness item of a BIP-322 signature for a P2TR address, and a PSBT's tap key
 * and tap script signatures and the signature of a finalized P2TR key-path input.
 */
function withoutBip340Signatures(answer: unknown): string | undefined {
  const result = (answer as { result?: unknown }).result
  if (typeof result !== 'object' || result === null) return undefined
  const { address, signature, psbt } = result as Record<string, unknown>
  try {
    if (typeof address === 'string' && typeof signature === 'string' && isTaproot(address)) {
      const witness = btc.RawWitness.decode(hexToBytes(signature))
      return zeroed(result, 'signature', hexToBytes(signature), witness)
    }
    if (typeof psbt !== 'string') return undefined
    const raw = Uint8Array.from(atob(psbt), (char) => char.charCodeAt(0))
    const transaction = btc.Transaction.fromPSBT(raw, { allowUnknownOutputs: true, allowUnknownInputs: true })
    const signatures: Uint8Array[] = []
    for (let index = 0; index < transaction.inputsLength; index++) {
      const input = transaction.getInput(index)
      if (input.tapKeySig !== undefined) signatures.push(input.tapKeySig)
      for (const [, tapScriptSig] of input.tapScriptSig ?? []) signatures.push(tapScriptSig)
      const script = input.witnessUtxo?.script
      if (script !== undefined && btc.OutScript.decode(script).type === 'tr')
        signatures.push(...(input.finalScriptWitness ?? []))
    }
    return zeroed(result, 'psbt', raw, signatures)
  } catch {
    return undefined
  }
}

/**
 * `result` as JSON, its `field` (`bytes`) as hex with each 64- or 65-byte (BIP-340, without or with a sighash
 * byte) signature among `signatures` zeroed; undefined when there is none.
 */
function zeroed(
  result: object,
  field: string,
  bytes: Uint8Array,
  signatures: Uint8Array[],
): string | undefined {
  const bip340 = signatures.filter(({ length }) => length === 64 || length === 65).map(bytesToHex)
  if (bip340.length === 0) return undefined
  const blanked = bip340.reduce(
    (hex, signature) => hex.replaceAll(signature, '00'.repeat(signature.length / 2)),
    bytesToHex(bytes),
  )
  return JSON.stringify({ ...result, [field]: blanked })
}

/** Whether a Bitcoin address (mainnet, testnet or regtest) pays to a P2TR output. */
function isTaproot(address: string): boolean {
  return [btc.NETWORK, btc.TEST_NETWORK, regtestNetwork].some((network) => {
    try {
      return btc.Address(network).decode(address).type === 'tr'
    } catch {
      return false
    }
  })
}

/** Another runtime's answers equal Node's, case by case (a failure names the differing cases). */
export function expectSameAsNode(cases: Case[], outcome: Outcome, node: Outcome): void {
  expect(outcome.results).toHaveLength(cases.length)
  expect(outcome.internalErrors).toEqual([])
  const agreement = agreementWithNode(cases, outcome, node)
  expect(cases.filter((_, i) => !agreement[i]).map((testCase) => testCase.name)).toEqual([])
  expect(JSON.stringify(outcome.sessions)).toBe(JSON.stringify(node.sessions))
}

/**
 * What a method's row is split by: bip122 `signMessage` by protocol (ecdsa when the params name none),
 * `ton_sendMessage` by wallet contract, `eth_sendTransaction` by the transaction type a `gasPrice` asks for.
 */
function rowVariant({ request, config }: Case): string {
  const params = request.params as Record<string, unknown> | Array<Record<string, unknown>> | undefined
  const first = Array.isArray(params) ? params[0] : params
  if (request.method === 'signMessage') return ` ${String(first?.protocol ?? 'ecdsa')}`
  if (request.method === 'ton_sendMessage') return ` ${String(config.tonWallet)}`
  if (request.method === 'eth_sendTransaction') return first?.gasPrice === undefined ? ' eip1559' : ' legacy'
  return ''
}

/** One check of a summary row: the outcome of a context and its per-case agreement with Node. */
type RowCheck = (outcome: Outcome, agreement: boolean[]) => boolean

/**
 * The results per method and runtime context, as a Markdown table: a row per namespace method (split by
 * rowVariant; cases on a recorded chain apart, marked so; refusals apart), a column per context, a
 * cell `pass` when every case of the row answered as in Node (`FAIL k/n` otherwise); then a row per
 * wallet-rpc/verify function run in the context, the session properties, and the backends each context chose.
 * What the closing note reports.
 */
export function agreementTable(cases: Case[], node: Outcome, outcomes: Map<string, Outcome>): string {
  const rows = new Map<string, RowCheck[]>()
  const verifyRows = new Map<string, RowCheck[]>()
  const addTo = (table: Map<string, RowCheck[]>, row: string, check: RowCheck) =>
    table.set(row, [...(table.get(row) ?? []), check])
  cases.forEach((testCase, i) => {
    const { chainId, method } = testCase.request
    const namespace = chainId.split(':')[0]
    const refused = 'error' in (node.results[i]!.answer as object)
    const onChain = testCase.chain === undefined ? '' : ', recorded chain'
    const row = refused
      ? `${namespace} ${method} (refusals)`
      : `${namespace} ${method}${rowVariant(testCase)}${onChain}`
    addTo(rows, row, (_, agreement) => agreement[i] === true)
    if (testCase.verify !== undefined && !refused)
      addTo(
        verifyRows,
        `verify.${testCase.verify.function}`,
        (outcome) => outcome.results[i]?.verdict?.valid === true,
      )
  })
  for (const [row, checks] of verifyRows) rows.set(row, checks)
  addTo(
    rows,
    'sessionProperties',
    (outcome) => JSON.stringify(outcome.sessions) === JSON.stringify(node.sessions),
  )
  addTo(rows, 'no internal error (onError)', (outcome) => outcome.internalErrors.length === 0)
  const contexts = [...outcomes].map(([name, outcome]) => ({
    name,
    outcome,
    agreement: agreementWithNode(cases, outcome, node),
  }))
  const lines = [
    `| method (cases) | ${contexts.map(({ name }) => name).join(' | ')} |`,
    `|---|${contexts.map(() => '---|').join('')}`,
  ]
  for (const [row, checks] of rows) {
    const cells = contexts.map(({ outcome, agreement }) => {
      const failed = checks.filter((check) => !check(outcome, agreement)).length
      return failed === 0 ? 'pass' : `FAIL ${failed}/${checks.length}`
    })
    lines.push(`| ${row} (${checks.length}) | ${cells.join(' | ')} |`)
  }
  const backends = contexts.map(({ outcome }) => Object.values(outcome.backends ?? {}).join(', '))
  lines.push(`| backends() | ${backends.join(' | ')} |`)
  return lines.join('\n')
}
