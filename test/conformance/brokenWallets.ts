// Deliberately broken wallets: the built-in handler with one spec rule broken each, and the exact cases the
// conformance suite must fail for it. runner.test.ts runs them through the module transport, exec.test.ts
// through `--exec` (fixtures/brokenWallet.ts NAME).
import * as ecc from '@bitcoinerlab/secp256k1'
import { schnorr } from '@noble/curves/secp256k1.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { Address } from '@ton/core'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import {
  asHandlerObject,
  type ConformanceRequest,
  createBuiltinHandler,
  type HandlerFactory,
} from '../../src/conformance/index.js'
import {
  compactSize,
  decodeAddress,
  serializeWithoutWitness,
  sha256d,
  sighashTaproot,
} from '../../src/verify/internal/bitcoin.js'
import { bip322MessageHash, bip322ToSpend } from '../../src/verify/signMessage.js'

type Response = Record<string, unknown>
type Tamper = (input: ConformanceRequest, response: Response, mnemonic: string | undefined) => unknown
type Rewrite = (input: ConformanceRequest) => ConformanceRequest

export type BrokenWallet = {
  /** The rule it breaks. */
  rule: string
  createHandler: HandlerFactory
  /** The cases to run (label filter). */
  filter: string
  /** Exactly the cases that must fail (labels without the `#N`), in run order. */
  fails: string[]
}

/** The built-in handler with its answers rewritten. */
function tampered(tamper: Tamper): HandlerFactory {
  return async (config) => {
    const inner = asHandlerObject(await createBuiltinHandler(config))
    return {
      ...inner,
      handle: async (input) => tamper(input, (await inner.handle(input)) as Response, config.mnemonic),
    }
  }
}

/** The built-in handler asked something other than the dapp asked (a wallet that ignores a field). */
function rewriting(rewrite: Rewrite): HandlerFactory {
  return async (config) => {
    const inner = asHandlerObject(await createBuiltinHandler(config))
    return { ...inner, handle: (input) => inner.handle(rewrite(input)) }
  }
}

const hdRootOf = (mnemonic: string) => BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(mnemonic))

/** BIP-322 simple signature for a P2TR address made with the *internal* key, i.e. without the BIP-86 tweak. */
function untweakedTaprootSignature(mnemonic: string, message: string): string {
  const node = hdRootOf(mnemonic).derivePath("m/86'/0'/0'/0/0")
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

const paramsOf = (input: ConformanceRequest) => input.request.params as Record<string, unknown>
const withParams = (input: ConformanceRequest, params: unknown): ConformanceRequest => ({
  ...input,
  request: { ...input.request, params },
})
const isMethod = (input: ConformanceRequest, method: string) => input.request.method === method

/** The 20 receive addresses after index 1 of the account, P2WPKH: what a wallet showing a fixed page lists. */
function unusedReceivePage(mnemonic: string, chainId: string, account: number) {
  const mainnet = chainId === 'bip122:000000000019d6689c085ae165831e93'
  const network = mainnet ? btc.NETWORK : { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
  const root = hdRootOf(mnemonic)
  return Array.from({ length: 20 }, (_, i) => {
    const path = `m/84'/${mainnet ? 0 : 1}'/${account}'/0/${i + 2}`
    const publicKey = Uint8Array.from(root.derivePath(path).publicKey)
    return { address: btc.p2wpkh(publicKey, network).address!, publicKey: hex.encode(publicKey), path }
  })
}

/** The ton_signData cases that expect a signature (the others expect a refusal). */
const tonSignDataSigningCases = [
  'ton/ton_signData: text "Hello, TON!"',
  'ton/ton_signData: binary (spec example bytes)',
  'ton/ton_signData: cell (spec jetton transfer, TEP-81 domain)',
  'ton/ton_signData: params as a bare object (what @tonconnect/sdk sends)',
  'ton/ton_signData: an origin with a port keeps the port in the domain',
  'ton/ton_signData: testnet chain',
  'ton/ton_signData: v4R2 wallet',
]

const typedDataMethods = new Set(['eth_signTypedData', 'eth_signTypedData_v3', 'eth_signTypedData_v4'])

export const brokenWallets: Record<string, BrokenWallet> = {
  untweakedTaproot: {
    rule: 'bip122 signMessage: a P2TR signature uses the BIP-86 tweaked key',
    filter: 'bip122/signMessage',
    createHandler: tampered((input, response, mnemonic) => {
      const params = paramsOf(input) as { address?: string; message?: string }
      if (!isMethod(input, 'signMessage') || !params.address?.startsWith('bc1p') || !('result' in response)) {
        return response
      }
      const signature = untweakedTaprootSignature(mnemonic!, params.message!)
      return { ...response, result: { address: params.address, signature } }
    }),
    fails: [
      'bip122/signMessage: bip322, P2TR (BIP-86 tweaked key)',
      'bip122/signMessage: ecdsa on a taproot address: refused, or a valid answer',
    ],
  },
  finalizesForeignInputs: {
    rule: 'bip122 signPsbt: only the listed inputs are signed; the others stay untouched',
    filter: 'bip122/signPsbt',
    createHandler: tampered((input, response) => {
      const result = response.result as { psbt?: string } | undefined
      if (!isMethod(input, 'signPsbt') || result?.psbt === undefined) return response
      const tx = btc.Transaction.fromPSBT(base64.decode(result.psbt), { allowUnknownOutputs: true })
      const listed = new Set((paramsOf(input).signInputs as { index: number }[]).map((s) => s.index))
      for (let index = 0; index < tx.inputsLength; index++) {
        if (listed.has(index)) continue
        try {
          tx.finalizeIdx(index)
        } catch {
          // Not finalizable (unsigned): a broken wallet leaves it.
        }
      }
      return { ...response, result: { ...result, psbt: base64.encode(tx.toPSBT()) } }
    }),
    fails: ['bip122/signPsbt: multi-party: the foreign input, already signed, stays untouched'],
  },
  ignoresBroadcast: {
    rule: 'bip122 signPsbt: with broadcast, the transaction is broadcast and its txid returned',
    filter: 'bip122/signPsbt',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'signPsbt')) return input
      const { broadcast: _, ...params } = paramsOf(input)
      return withParams(input, params)
    }),
    fails: [
      'bip122/signPsbt: broadcast: the signed transaction is final, its txid returned and on the chain',
    ],
  },
  hexAsText: {
    rule: 'eip155 personal_sign: a 0x-hex message is signed as its bytes',
    filter: 'eip155/personal_sign',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'personal_sign')) return input
      const [message, address] = input.request.params as [string, string]
      // Sends the hex string itself as a UTF-8 message: what a naive signMessage({message}) does.
      return withParams(input, [`0x${Buffer.from(message, 'utf8').toString('hex')}`, address])
    }),
    fails: [
      'eip155/personal_sign: hex message "hello world" (viem vector)',
      'eip155/personal_sign: binary 32-byte message (eth-sig-util "test II" message)',
      'eip155/personal_sign: message on the local chain id verifies',
      "eip155/personal_sign: account 1 (m/44'/60'/0'/0/1, anvil dev account #1)",
    ],
  },
  everyErrorMinus32000: {
    rule: 'error codes: refusals answer their own code (4100, 5000, -32602), not -32000 for everything',
    filter: 'ton/ton_signData',
    createHandler: tampered((_input, response) =>
      'error' in response
        ? { ...response, error: { code: -32000, message: 'User rejected methods.' } }
        : response,
    ),
    fails: [
      'ton/ton_signData: no verified origin',
      'ton/ton_signData: `from` another wallet',
      'ton/ton_signData: an unknown type',
      'ton/ton_signData: a cell that is not a BoC',
      'ton/ton_signData: the user rejects',
    ],
  },
  errorsWithoutMessage: {
    rule: 'JSON-RPC error form: {code: number, message: string}',
    filter: 'bip122/signMessage',
    createHandler: tampered((_input, response) =>
      'error' in response
        ? { ...response, error: { code: (response.error as { code: number }).code } }
        : response,
    ),
    fails: [
      'bip122/signMessage: an address of another wallet',
      'bip122/signMessage: a testnet address on mainnet',
      'bip122/signMessage: an unknown protocol',
      'bip122/signMessage: the message missing',
      'bip122/signMessage: the user rejects',
    ],
  },
  gapLimit: {
    rule: 'bip122 getAccountAddresses: fewer than 20 unused addresses (gap limit)',
    filter: 'bip122/getAccountAddresses',
    createHandler: async (config) => {
      const inner = asHandlerObject(await createBuiltinHandler(config))
      return {
        ...inner,
        handle: async (input) => {
          const response = (await inner.handle(input)) as Response
          const intentions = paramsOf(input).intentions as string[] | undefined
          if (!Array.isArray(response.result) || (intentions && !intentions.includes('payment')))
            return response
          const page = unusedReceivePage(config.mnemonic!, input.chainId, config.account)
          const listed = new Set(response.result.map((entry: { address: string }) => entry.address))
          return { ...response, result: [...response.result, ...page.filter((e) => !listed.has(e.address))] }
        },
      }
    },
    fails: [
      'bip122/getAccountAddresses: mainnet account, no provider (static minimum)',
      'bip122/getAccountAddresses: intentions ["payment"]',
      'bip122/getAccountAddresses: regtest account',
      'bip122/getAccountAddresses: coins on receive index 5 and change index 2 are listed (gap limit respected)',
    ],
  },
  ignoresIntentions: {
    rule: 'bip122 getAccountAddresses: the intentions filter (an entry without `intention` is judged by type)',
    filter: 'bip122/getAccountAddresses',
    createHandler: tampered((input, response) => {
      if (!isMethod(input, 'getAccountAddresses') || !Array.isArray(response.result)) return response
      // Payment addresses whatever the filter, and no `intention` field: react-wallet-v2's answer.
      const payment = response.result.filter((entry: { intention?: string }) => entry.intention === 'payment')
      return { ...response, result: payment.map(({ intention: _, ...entry }) => entry) }
    }),
    fails: ['bip122/getAccountAddresses: intentions ["ordinal"]'],
  },
  omitsFundedAddresses: {
    rule: 'bip122 getAccountAddresses: every address holding UTXOs is listed',
    filter: 'bip122/getAccountAddresses',
    createHandler: tampered((input, response) => {
      if (!isMethod(input, 'getAccountAddresses') || !Array.isArray(response.result)) return response
      return { ...response, result: response.result.slice(0, 1) }
    }),
    fails: [
      'bip122/getAccountAddresses: coins on receive index 5 and change index 2 are listed (gap limit respected)',
    ],
  },
  bitcoinSignatureWith0x: {
    rule: 'bip122 signMessage: signature is hex without 0x',
    filter: 'bip122/signMessage',
    createHandler: tampered((input, response) => {
      const result = response.result as { signature?: string } | undefined
      if (!isMethod(input, 'signMessage') || result?.signature === undefined) return response
      return { ...response, result: { ...result, signature: `0x${result.signature}` } }
    }),
    fails: [
      'bip122/signMessage: ecdsa, P2WPKH account, "Hello World" (RFC 6979)',
      'bip122/signMessage: ecdsa, empty message',
      'bip122/signMessage: ecdsa, P2SH-P2WPKH address',
      'bip122/signMessage: ecdsa, P2PKH address',
      'bip122/signMessage: bip322, P2WPKH',
      'bip122/signMessage: bip322, P2TR (BIP-86 tweaked key)',
      'bip122/signMessage: bip322, P2SH-P2WPKH',
      'bip122/signMessage: bip322, P2PKH (legacy format)',
      'bip122/signMessage: bip322, multi-line UTF-8 message',
      'bip122/signMessage: ecdsa on a taproot address: refused, or a valid answer',
      'bip122/signMessage: regtest account',
      'bip122/signMessage: testnet account',
      "bip122/signMessage: account 1 (m/84'/0'/1'/0/0)",
    ],
  },
  ignoresMemo: {
    rule: 'bip122 sendTransfer: memo is an OP_RETURN of at most 80 bytes, hex without 0x',
    filter: 'bip122/sendTransfer',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'sendTransfer')) return input
      const { memo: _, ...params } = paramsOf(input)
      return withParams(input, params)
    }),
    fails: [
      'bip122/sendTransfer: with the docs memo (hex of "charley loves he")',
      'bip122/sendTransfer: a memo of 81 bytes',
      'bip122/sendTransfer: a memo with 0x',
    ],
  },
  tonWithoutStateInit: {
    rule: 'ton session approval: ton_getPublicKey and ton_getStateInit in the session properties',
    filter: 'ton/ton_signData',
    createHandler: async (config) => {
      const inner = asHandlerObject(await createBuiltinHandler(config))
      return {
        ...inner,
        sessionProperties: async () => {
          const { ton_getStateInit: _, ...rest } = (await inner.sessionProperties?.()) ?? {}
          return rest
        },
      }
    },
    fails: [
      ...tonSignDataSigningCases,
      'ton/ton_signData: no verified origin',
      'ton/ton_signData: `from` another wallet',
      'ton/ton_signData: an unknown type',
      'ton/ton_signData: a cell that is not a BoC',
      'ton/ton_signData: the user rejects',
    ],
  },
  tonSignDataFriendlyAddress: {
    rule: 'ton_signData: result address is the raw wallet address',
    filter: 'ton/ton_signData',
    createHandler: tampered((input, response) => {
      const result = response.result as { address?: string } | undefined
      if (!isMethod(input, 'ton_signData') || result?.address === undefined) return response
      return { ...response, result: { ...result, address: Address.parse(result.address).toString() } }
    }),
    fails: [...tonSignDataSigningCases],
  },
  tonSignDataNoEcho: {
    rule: 'ton_signData: result payload echoes the signed payload',
    filter: 'ton/ton_signData',
    createHandler: tampered((input, response) => {
      const result = response.result as Record<string, unknown> | undefined
      if (!isMethod(input, 'ton_signData') || result === undefined) return response
      const { payload: _, ...rest } = result
      return { ...response, result: rest }
    }),
    fails: [...tonSignDataSigningCases],
  },
  typedDataIgnoresDomainChain: {
    rule: 'eip155 eth_signTypedData: a domain.chainId of another chain is refused',
    filter: 'eip155/eth_signTypedData',
    createHandler: rewriting((input) => {
      if (!typedDataMethods.has(input.request.method)) return input
      const [address, data] = input.request.params as [string, unknown]
      const typed = (typeof data === 'string' ? JSON.parse(data) : data) as { domain?: { chainId?: unknown } }
      const chainId = typed.domain?.chainId
      if (chainId === undefined || Number(chainId) === Number(input.chainId.split(':')[1])) return input
      // Signs for the chain the request came on, whatever the domain says.
      const domain = { ...typed.domain, chainId: Number(input.chainId.split(':')[1]) }
      return withParams(input, [address, { ...typed, domain }])
    }),
    fails: [
      'eip155/eth_signTypedData_v3: domain.chainId of another chain is refused',
      'eip155/eth_signTypedData_v4: domain.chainId of another chain is refused',
      'eip155/eth_signTypedData: domain.chainId of another chain is refused',
    ],
  },
}
