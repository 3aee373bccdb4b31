// Deliberately broken wallets: the built-in handler with one spec rule broken each, and the exact cases the
// conformance suite must fail for it. runner.test.ts runs them through the module transport, exec.test.ts
// through `--exec` (fixtures/brokenWallet.ts NAME).
import * as ecc from '@bitcoinerlab/secp256k1'
import { schnorr } from '@noble/curves/secp256k1.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { Address, Cell } from '@ton/core'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import { hexToBytes, keccak256, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import {
  compactSize,
  decodeAddress,
  serializeWithoutWitness,
  sha256d,
  sighashTaproot,
} from '../../src/checks/bitcoin.js'
import {
  asHandlerObject,
  type ConformanceRequest,
  createBuiltinHandler,
  type HandlerFactory,
  type WalletConfig,
} from '../../src/conformance/index.js'
import { bip322MessageHash, bip322ToSpend } from '../../src/verify/signMessage.js'

type Response = Record<string, unknown>
type Tamper = (input: ConformanceRequest, response: Response, config: WalletConfig) => unknown
type Rewrite = (input: ConformanceRequest, config: WalletConfig) => ConformanceRequest

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
      handle: async (input) => tamper(input, (await inner.handle(input)) as Response, config),
    }
  }
}

/** The built-in handler asked something other than the dapp asked (a wallet that ignores a field). */
function rewriting(rewrite: Rewrite): HandlerFactory {
  return async (config) => {
    const inner = asHandlerObject(await createBuiltinHandler(config))
    return { ...inner, handle: (input) => inner.handle(rewrite(input, config)) }
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

/** The network and coin type an account address names (bc1…, tb1…, bcrt1…). */
function bitcoinNetworkOf(account: string) {
  if (account.startsWith('bcrt1')) {
    return { network: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }, coin: 1 }
  }
  return account.startsWith('tb1')
    ? { network: btc.TEST_NETWORK, coin: 1 }
    : { network: btc.NETWORK, coin: 0 }
}

/** The account's first external P2TR address (m/86'/coin'/account'/0/0). */
function taprootAddressOf(config: WalletConfig, account: string): string {
  const { network, coin } = bitcoinNetworkOf(account)
  const node = hdRootOf(config.mnemonic!).derivePath(`m/86'/${coin}'/${config.account}'/0/0`)
  return btc.p2tr(Uint8Array.from(node.publicKey).slice(1), undefined, network).address!
}

/** A TON request's transfers or sign-data items, each rewritten (params are an array or a bare object). */
function eachTonItem(input: ConformanceRequest, rewrite: (item: Record<string, unknown>) => unknown) {
  const params = input.request.params
  return withParams(
    input,
    Array.isArray(params) ? params.map((item) => rewrite(item)) : rewrite(params as Record<string, unknown>),
  )
}

/** The message bytes of personal_sign / eth_sign: 0x-hex as bytes, anything else as UTF-8 text. */
const messageBytes = (message: string) =>
  /^0x([0-9a-fA-F]{2})*$/.test(message)
    ? hexToBytes(message as `0x${string}`)
    : new TextEncoder().encode(message)

/** An Ethereum signature over `hash` itself, without the "\x19Ethereum Signed Message" prefix. */
const rawSignature = (config: WalletConfig, hash: `0x${string}`) =>
  mnemonicToAccount(config.mnemonic!, { addressIndex: config.account }).sign({ hash })

export const brokenWallets: Record<string, BrokenWallet> = {
  untweakedTaproot: {
    rule: 'bip122 signMessage: a P2TR signature uses the BIP-86 tweaked key',
    filter: 'bip122/signMessage',
    createHandler: tampered((input, response, config) => {
      const params = paramsOf(input) as { address?: string; message?: string }
      if (!isMethod(input, 'signMessage') || !params.address?.startsWith('bc1p') || !('result' in response)) {
        return response
      }
      const signature = untweakedTaprootSignature(config.mnemonic!, params.message!)
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
  signMessageDefaultsToBip322: {
    rule: 'bip122 signMessage: without `protocol`, ecdsa (BIP-137) is used',
    filter: 'bip122/signMessage',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'signMessage') || paramsOf(input).protocol !== undefined) return input
      return withParams(input, { ...paramsOf(input), protocol: 'bip322' })
    }),
    fails: [
      'bip122/signMessage: ecdsa, P2WPKH account, "Hello World" (RFC 6979)',
      'bip122/signMessage: ecdsa, P2SH-P2WPKH address',
      'bip122/signMessage: regtest account',
    ],
  },
  signMessageDefaultsToTaproot: {
    rule: 'bip122 signMessage: without `address`, the account address (first external P2WPKH) signs',
    filter: 'bip122/signMessage',
    createHandler: rewriting((input, config) => {
      const params = paramsOf(input) as { account?: unknown; address?: unknown }
      if (
        !isMethod(input, 'signMessage') ||
        params.address !== undefined ||
        typeof params.account !== 'string'
      )
        return input
      return withParams(input, { ...params, address: taprootAddressOf(config, params.account) })
    }),
    fails: [
      'bip122/signMessage: ecdsa, P2WPKH account, "Hello World" (RFC 6979)',
      'bip122/signMessage: ecdsa, empty message',
      'bip122/signMessage: bip322, P2WPKH',
      'bip122/signMessage: bip322, multi-line UTF-8 message',
      'bip122/signMessage: regtest account',
      'bip122/signMessage: testnet account',
      "bip122/signMessage: account 1 (m/84'/0'/1'/0/0)",
    ],
  },
  signMessageIgnoresAddress: {
    rule: 'bip122 signMessage: the `address` asked for signs (or the request is refused)',
    filter: 'bip122/signMessage',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'signMessage')) return input
      const { address: _, ...params } = paramsOf(input)
      return withParams(input, params)
    }),
    fails: [
      'bip122/signMessage: ecdsa, P2SH-P2WPKH address',
      'bip122/signMessage: ecdsa, P2PKH address',
      'bip122/signMessage: bip322, P2TR (BIP-86 tweaked key)',
      'bip122/signMessage: bip322, P2SH-P2WPKH',
      'bip122/signMessage: bip322, P2PKH (legacy format)',
      'bip122/signMessage: ecdsa on a taproot address: refused, or a valid answer',
      'bip122/signMessage: an address of another wallet',
    ],
  },
  signsAnySighash: {
    rule: 'bip122 signPsbt: only the sighash types of signInputs (default [1] SIGHASH_ALL) are signed',
    filter: 'bip122/signPsbt',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'signPsbt')) return input
      const params = paramsOf(input) as { signInputs?: unknown }
      if (!Array.isArray(params.signInputs)) return input
      // Whatever the PSBT's inputs ask for is "allowed".
      const signInputs = params.signInputs.map((entry: Record<string, unknown>) => ({
        ...entry,
        sighashTypes: [0, 1, 2, 3, 0x81, 0x82, 0x83],
      }))
      return withParams(input, { ...params, signInputs })
    }),
    fails: ['bip122/signPsbt: an input sighash the request did not allow'],
  },
  sendTransferTxidWith0x: {
    rule: 'bip122 sendTransfer: txid is hex without 0x',
    filter: 'bip122/sendTransfer',
    createHandler: tampered((input, response) => {
      const result = response.result as { txid?: string } | undefined
      if (!isMethod(input, 'sendTransfer') || result?.txid === undefined) return response
      return { ...response, result: { ...result, txid: `0x${result.txid}` } }
    }),
    fails: [
      'bip122/sendTransfer: pay 100 000 sat',
      'bip122/sendTransfer: with the docs memo (hex of "charley loves he")',
      'bip122/sendTransfer: change to a given address of ours',
    ],
  },
  ignoresChangeAddress: {
    rule: 'bip122 sendTransfer: change goes to `changeAddress` when given (and only to an address of ours)',
    filter: 'bip122/sendTransfer',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'sendTransfer')) return input
      const { changeAddress: _, ...params } = paramsOf(input)
      return withParams(input, params)
    }),
    fails: [
      'bip122/sendTransfer: change to a given address of ours',
      'bip122/sendTransfer: a change address of another wallet',
    ],
  },
  omitsFirstAddress: {
    rule: 'bip122 getAccountAddresses: the first external address is listed',
    filter: 'bip122/getAccountAddresses',
    createHandler: tampered((input, response) => {
      if (!isMethod(input, 'getAccountAddresses') || !Array.isArray(response.result)) return response
      const account = paramsOf(input).account
      return {
        ...response,
        result: response.result.filter((e: { address: string }) => e.address !== account),
      }
    }),
    fails: [
      'bip122/getAccountAddresses: mainnet account, no provider (static minimum)',
      'bip122/getAccountAddresses: intentions ["payment"]',
      'bip122/getAccountAddresses: regtest account',
      'bip122/getAccountAddresses: coins on receive index 5 and change index 2 are listed (gap limit respected)',
    ],
  },
  publicKeyWith0x: {
    rule: 'bip122 getAccountAddresses: publicKey is hex without 0x',
    filter: 'bip122/getAccountAddresses',
    createHandler: tampered((input, response) => {
      if (!isMethod(input, 'getAccountAddresses') || !Array.isArray(response.result)) return response
      const result = response.result.map((entry: { publicKey?: string }) =>
        entry.publicKey === undefined ? entry : { ...entry, publicKey: `0x${entry.publicKey}` },
      )
      return { ...response, result }
    }),
    fails: [
      'bip122/getAccountAddresses: mainnet account, no provider (static minimum)',
      'bip122/getAccountAddresses: intentions ["payment"]',
      'bip122/getAccountAddresses: intentions ["ordinal"]',
      'bip122/getAccountAddresses: regtest account',
      'bip122/getAccountAddresses: coins on receive index 5 and change index 2 are listed (gap limit respected)',
    ],
  },
  tonIgnoresValidUntil: {
    rule: 'ton_sendMessage: valid_until is respected (an expired request is refused, the signed expiry is no later)',
    filter: 'ton/ton_sendMessage',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'ton_sendMessage')) return input
      return eachTonItem(input, ({ valid_until: _, validUntil: __, ...transfer }) => transfer)
    }),
    fails: [
      'ton/ton_sendMessage: two messages, a comment payload and a bounceable address, amount as a number',
      'ton/ton_sendMessage: valid_until in the past',
    ],
  },
  tonDropsStateInit: {
    rule: "ton_sendMessage: a message's stateInit is sent with it",
    filter: 'ton/ton_sendMessage',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'ton_sendMessage')) return input
      return eachTonItem(input, (transfer) => ({
        ...transfer,
        messages: (transfer.messages as Record<string, unknown>[]).map(({ stateInit: _, ...m }) => m),
      }))
    }),
    fails: ['ton/ton_sendMessage: a deploy: a message carrying a StateInit to its own address'],
  },
  tonDropsPayload: {
    rule: "ton_sendMessage: a message's payload is sent with it",
    filter: 'ton/ton_sendMessage',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'ton_sendMessage')) return input
      return eachTonItem(input, (transfer) => ({
        ...transfer,
        messages: (transfer.messages as Record<string, unknown>[]).map(({ payload: _, ...m }) => m),
      }))
    }),
    fails: [
      'ton/ton_sendMessage: two messages, a comment payload and a bounceable address, amount as a number',
    ],
  },
  tonSendMessageReturnsHash: {
    rule: 'ton_sendMessage: the result is the base64 BoC of the sent message',
    filter: 'ton/ton_sendMessage',
    createHandler: tampered((input, response) => {
      if (!isMethod(input, 'ton_sendMessage') || typeof response.result !== 'string') return response
      const hash = Cell.fromBase64(response.result).hash()
      return { ...response, result: hash.toString('hex') }
    }),
    fails: [
      'ton/ton_sendMessage: one non-bounceable transfer (deploys the wallet)',
      'ton/ton_sendMessage: two messages, a comment payload and a bounceable address, amount as a number',
      'ton/ton_sendMessage: a deploy: a message carrying a StateInit to its own address',
      'ton/ton_sendMessage: valid_until in milliseconds',
      'ton/ton_sendMessage: v4R2 wallet',
    ],
  },
  tonIgnoresFrom: {
    rule: 'ton_signData: `from` names the signing wallet (another wallet is refused, 4100)',
    filter: 'ton/ton_signData',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'ton_signData')) return input
      return eachTonItem(input, ({ from: _, ...item }) => item)
    }),
    fails: ['ton/ton_signData: `from` another wallet'],
  },
  tonSignDataDropsPort: {
    rule: "ton_signData: domain is the dapp origin's host, port included",
    filter: 'ton/ton_signData',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'ton_signData') || input.origin === undefined) return input
      const url = new URL(input.origin)
      return { ...input, origin: `${url.protocol}//${url.hostname}` }
    }),
    fails: ['ton/ton_signData: an origin with a port keeps the port in the domain'],
  },
  tonSignDataSystemClock: {
    rule: 'ton_signData: timestamp is the wallet clock at signing',
    filter: 'ton/ton_signData',
    createHandler: async (config) => createBuiltinHandler({ ...config, now: config.now - 3600 }),
    fails: [...tonSignDataSigningCases],
  },
  personalSignWithoutPrefix: {
    rule: 'eip155 personal_sign: the signature is over the "\\x19Ethereum Signed Message:\\n" prefixed hash',
    filter: 'eip155/personal_sign',
    createHandler: tampered(async (input, response, config) => {
      if (!isMethod(input, 'personal_sign') || typeof response.result !== 'string') return response
      const [message] = input.request.params as [string]
      return { ...response, result: await rawSignature(config, keccak256(messageBytes(message))) }
    }),
    fails: [
      'eip155/personal_sign: hex message "hello world" (viem vector)',
      'eip155/personal_sign: UTF-8 text "hello world" signs the same bytes',
      'eip155/personal_sign: binary 32-byte message (eth-sig-util "test II" message)',
      'eip155/personal_sign: message on the local chain id verifies',
      "eip155/personal_sign: account 1 (m/44'/60'/0'/0/1, anvil dev account #1)",
      'eip155/personal_sign: Sign-In with Ethereum from the site it names: signed',
    ],
  },
  ethSignRawHash: {
    rule: 'eip155 eth_sign: [address, message], signed with the same prefix as personal_sign (or refused)',
    filter: 'eip155/eth_sign',
    createHandler: tampered(async (input, response, config) => {
      if (!isMethod(input, 'eth_sign')) return response
      const [address, message] = input.request.params as [string, string]
      const ours = mnemonicToAccount(config.mnemonic!, { addressIndex: config.account }).address
      if (address.toLowerCase() !== ours.toLowerCase()) return response
      const bytes = messageBytes(message)
      const hash = bytes.length === 32 ? toHex(bytes) : keccak256(bytes)
      return { jsonrpc: '2.0', id: input.request.id, result: await rawSignature(config, hash) }
    }),
    fails: [
      'eip155/eth_sign: a 32-byte hash: refused, or prefixed (a raw-hash signature fails)',
      'eip155/eth_sign: short hex data: refused, or prefixed',
    ],
  },
  signTransactionIgnoresChainId: {
    rule: "eip155 eth_signTransaction: a transaction naming another chain than the request's is refused",
    filter: 'eip155/eth_signTransaction',
    createHandler: rewriting((input) => {
      if (!isMethod(input, 'eth_signTransaction')) return input
      const [{ chainId: _, ...tx }] = input.request.params as [Record<string, unknown>]
      return withParams(input, [tx])
    }),
    fails: ['eip155/eth_signTransaction: a chainId field for another chain'],
  },
  signsSighashNone: {
    rule: 'bip122 signPsbt: SIGHASH_NONE is refused even when listed (anyone could redirect the outputs)',
    filter: 'bip122/signPsbt',
    createHandler: tampered((input, response, config) => {
      const params = paramsOf(input) as {
        psbt?: string
        signInputs?: { index: number; sighashTypes?: number[] }[]
      }
      const none = (params.signInputs ?? []).filter((entry) => entry.sighashTypes?.includes(btc.SigHash.NONE))
      if (!isMethod(input, 'signPsbt') || !('error' in response) || none.length === 0) return response
      // Signs what it was asked to, as react-wallet-v2 does.
      const tx = btc.Transaction.fromPSBT(base64.decode(params.psbt!))
      const key = hdRootOf(config.mnemonic!).derivePath(`m/84'/0'/${config.account}'/0/0`).privateKey!
      for (const entry of none) tx.signIdx(Uint8Array.from(key), entry.index, [btc.SigHash.NONE])
      return { jsonrpc: '2.0', id: input.request.id, result: { psbt: base64.encode(tx.toPSBT()) } }
    }),
    fails: ['bip122/signPsbt: SIGHASH_NONE is refused'],
  },
  ignoresAtomicRequired: {
    rule: 'eip155 wallet_sendCalls: atomicRequired is honoured (one atomic transaction, 5750, 5760), never sent call by call',
    filter: 'eip155/wallet_sendCalls',
    // A wallet without EIP-7702 that sends the calls one by one whatever the dapp required.
    createHandler: ({ delegates: _, ...config }) =>
      rewriting((input) => {
        if (!isMethod(input, 'wallet_sendCalls')) return input
        const [batch] = input.request.params as [Record<string, unknown>]
        return batch.atomicRequired === true
          ? withParams(input, [{ ...batch, atomicRequired: false }])
          : input
      })(config),
    fails: [
      'eip155/wallet_sendCalls: two calls, atomic, on a chain with a delegate: one type-4 transaction upgrading the account and executing both',
      'eip155/wallet_sendCalls: atomic, the upgrade declined by the user: 5750 (rejected upgrade), nothing sent',
      'eip155/wallet_sendCalls: atomic required, no delegate: refused before any chain read',
    ],
  },
  delegatesElsewhere: {
    rule: 'eip155 wallet_sendCalls: the account is delegated only to the delegate the wallet is configured with',
    filter: 'eip155/wallet_sendCalls',
    // A wallet that upgrades accounts to some other contract than the one it announces.
    createHandler: (config) =>
      createBuiltinHandler({
        ...config,
        delegates: Object.fromEntries(
          Object.keys(config.delegates ?? {}).map((chainId) => [
            chainId,
            '0x000000000000000000000000000000000000c0de',
          ]),
        ),
      }),
    fails: [
      'eip155/wallet_sendCalls: two calls, atomic, on a chain with a delegate: one type-4 transaction upgrading the account and executing both',
    ],
  },
  ignoresRejection: {
    rule: "the user's rejection is final: nothing is signed or sent, 5000 (eip155: EIP-1193's 4001)",
    filter: 'user rejects',
    createHandler: (config) => createBuiltinHandler({ ...config, approve: 'all' }),
    fails: [
      'bip122/sendTransfer: the user rejects',
      'bip122/signMessage: the user rejects',
      'bip122/signPsbt: the user rejects',
      'eip155/eth_sendTransaction: the user rejects',
      'eip155/eth_signTransaction: the user rejects',
      'eip155/eth_signTypedData_v3: the user rejects',
      'eip155/eth_signTypedData_v4: the user rejects',
      'eip155/eth_signTypedData: the user rejects',
      'eip155/personal_sign: the user rejects',
      'eip155/wallet_sendCalls: not atomic, the user rejects: 4001 (EIP-1193; 5750 is only for a declined upgrade)',
      'solana/solana_signMessage: user rejects (5000)',
      'solana/solana_signTransaction: user rejects (5000)',
      'ton/ton_sendMessage: the user rejects',
      'ton/ton_signData: the user rejects',
    ],
  },
}
