import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import {
  type SolanaChainProvider,
  type SolanaNamespaceOptions,
  solana,
  solanaKeys,
  solanaMainnet,
} from '../../src/solana/index.js'

/** The BIP-39 test mnemonic (all "abandon" … "about"). */
export const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

export const keys = () => solanaKeys.fromMnemonic(mnemonic, { account: [0, 1] })
export const ours = (index = 0) => {
  const signer = keys()[index]!
  return address(bytesToBase58(signer.publicKey))
}
export const stranger = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')
export const someBlockhash = blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k')

function bytesToBase58(bytes: Uint8Array): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  let out = ''
  while (value > 0n) {
    out = alphabet[Number(value % 58n)] + out
    value /= 58n
  }
  for (const byte of bytes) {
    if (byte !== 0) break
    out = `1${out}`
  }
  return out
}

/** A transaction compiled by @solana/kit (independent of our encoder), base64 wire form, no signatures. */
export function kitTransaction(options: {
  feePayer: Address
  instructions?: Instruction[]
  blockhash?: ReturnType<typeof blockhash>
}): { base64: string; messageBytes: Uint8Array } {
  const instructions = options.instructions ?? [
    getTransferSolInstruction({
      source: createNoopSigner(options.feePayer),
      destination: stranger,
      amount: 1_500_000n,
    }),
  ]
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(options.feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: options.blockhash ?? someBlockhash, lastValidBlockHeight: 100n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  const compiled = compileTransaction(message)
  return {
    base64: getBase64EncodedWireTransaction(compiled),
    messageBytes: new Uint8Array(compiled.messageBytes),
  }
}

export function legacyKitTransaction(feePayer: Address, instructions?: Instruction[]) {
  const instructionList = instructions ?? [
    getTransferSolInstruction({
      source: createNoopSigner(feePayer),
      destination: stranger,
      amount: 1_500_000n,
    }),
  ]
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: someBlockhash, lastValidBlockHeight: 100n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructionList, m),
  )
  const compiled = compileTransaction(message)
  return {
    base64: getBase64EncodedWireTransaction(compiled),
    messageBytes: new Uint8Array(compiled.messageBytes),
  }
}

export type Harness = {
  wallet: WalletRpc
  reviews: Review[]
  errors: unknown[]
  call(method: string, params: unknown, chainId?: string): Promise<Record<string, unknown>>
  result<T>(method: string, params: unknown, chainId?: string): Promise<T>
}

let nextId = 1

export function harness(
  options: Partial<SolanaNamespaceOptions> = {},
  settings: { approve?: (review: Review) => boolean; chainId?: string } = {},
): Harness {
  const reviews: Review[] = []
  const errors: unknown[] = []
  const wallet = createWalletRpc({
    namespaces: [solana({ keys: keys(), ...options })],
    approve: (review) => {
      reviews.push(review)
      return settings.approve ? settings.approve(review) : true
    },
    onError: (error) => errors.push(error),
  })
  const defaultChain = settings.chainId ?? solanaMainnet
  const call = async (method: string, params: unknown, chainId = defaultChain) =>
    (await wallet.handle({ chainId, request: { id: nextId++, jsonrpc: '2.0', method, params } })) as Record<
      string,
      unknown
    >
  return {
    wallet,
    reviews,
    errors,
    call,
    async result<T>(method: string, params: unknown, chainId?: string) {
      const response = await call(method, params, chainId)
      if (!('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response.error)}`)
      return response.result as T
    },
  }
}

/** A provider that only serves the two reads a connect-time payment needs (`solanaConnectPayments`). */
export function paymentReads(
  accounts: Record<string, { owner: string; data: Uint8Array }>,
): SolanaChainProvider {
  const unused = () => Promise.reject(new Error('not used'))
  return {
    isBlockhashValid: unused,
    getBalances: unused,
    getTokenBalances: unused,
    getNonce: unused,
    getLookupTable: unused,
    simulate: unused,
    send: unused,
    getLatestBlockhash: async () => someBlockhash,
    getAccountInfo: async (key) =>
      Object.hasOwn(accounts, key) ? { ...accounts[key]!, lamports: 1_000_000n } : undefined,
  }
}

/** An initialized SPL mint account's data with these decimals. */
export const mintData = (decimals: number) => {
  const data = new Uint8Array(82)
  data[44] = decimals
  data[45] = 1
  return data
}
