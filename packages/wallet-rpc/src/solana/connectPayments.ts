import { concatBytes } from '@noble/hashes/utils.js'
import type { ConnectPayments } from '../core/connectPayment.js'
import { associatedTokenAccount } from './associatedToken.js'
import { decodeBase58, encodeBase64, encodeShortVec } from './encoding.js'
import { associatedTokenProgram, systemProgram, token2022Program, tokenProgram } from './programs.js'
import type { SolanaChainProvider } from './provider.js'

export type SolanaConnectPaymentsOptions = {
  /** The providers the wallet's solana namespace uses, by CAIP-2 chain id (`getLatestBlockhash`, `getAccountInfo`). */
  providers: Partial<Record<string, SolanaChainProvider>>
}

type AccountMeta = { key: Uint8Array; signer: boolean; writable: boolean }
type Instruction = { program: Uint8Array; accounts: AccountMeta[]; data: Uint8Array }
type Asset = { kind: 'sol' } | { kind: 'token'; mint: Uint8Array; program: Uint8Array; decimals: number }

const solDecimals = 9
/** System and token transfers carry a u64: a larger amount would be signed modulo 2^64. */
const maxU64 = 2n ** 64n - 1n
const tooLarge = `the amount is more than a u64 holds (${maxU64} minor units)`
/** A mint account (SPL Token layout, also Token-2022's base): decimals at 44, `is_initialized` at 45. */
const mintSize = 82
const base58Pattern = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

/**
 * Pays `walletPay` options on solana at connect (pass it to `attachWalletKit({ payments: [...] })`): SOL
 * (`slip44:501`) with a System transfer, SPL and Token-2022 tokens (`token:<mint>`, the CAIP-19 namespace of
 * ChainAgnostic's solana profile) with a `transferChecked` to the recipient's associated token account, created
 * first if missing (idempotent). The mint's decimals and program are read from the chain; the transaction is
 * built with a fresh blockhash and answered through `solana_signAndSendTransaction`, so it gets that method's
 * review, simulation and broadcast check; the txid is the transaction's signature.
 */
export function solanaConnectPayments(options: SolanaConnectPaymentsOptions): ConnectPayments {
  const providerOf = (chainId: string) => {
    const provider = Object.hasOwn(options.providers, chainId) ? options.providers[chainId] : undefined
    return provider?.getLatestBlockhash === undefined || provider.getAccountInfo === undefined
      ? undefined
      : provider
  }
  async function assetOf(provider: SolanaChainProvider, asset: string): Promise<Asset | string> {
    const [, assetType, reference] = /^[^/]+\/([-a-z0-9]+):(.+)$/.exec(asset) ?? []
    if (assetType === 'slip44' && reference === '501') return { kind: 'sol' }
    if (assetType !== 'token') return `asset type ${assetType ?? '?'} is not slip44:501 or token`
    const mint = addressBytes(reference!)
    if (mint === undefined) return 'the mint is not a base58 address'
    const account = await provider.getAccountInfo!(reference!)
    if (account === undefined) return `mint ${reference} does not exist on the chain`
    if (account.owner !== tokenProgram && account.owner !== token2022Program)
      return `${reference} is not a token mint (owner ${account.owner})`
    if (account.data.length < mintSize || account.data[45] !== 1)
      return `${reference} is not an initialized mint`
    return { kind: 'token', mint, program: decodeBase58(account.owner, 'owner'), decimals: account.data[44]! }
  }
  return {
    namespace: 'solana',
    method: 'solana_signAndSendTransaction',
    async describe({ chainId, asset, recipient, amount }) {
      if (amount > maxU64) return { unpayable: tooLarge }
      const provider = providerOf(chainId)
      if (provider === undefined) return { unpayable: `no provider for ${chainId} that can build a payment` }
      if (addressBytes(recipient.split(':')[2] ?? '') === undefined)
        return { unpayable: 'the recipient is not a base58 address' }
      try {
        const found = await assetOf(provider, asset)
        if (typeof found === 'string') return { unpayable: found }
        return found.kind === 'sol'
          ? { decimals: solDecimals, symbol: 'SOL' }
          : { decimals: found.decimals, symbol: undefined }
      } catch (error) {
        return { unpayable: `reading the asset failed: ${error instanceof Error ? error.message : 'error'}` }
      }
    },
    async request({ chainId, asset, recipient, amount, payer }) {
      if (amount > maxU64) throw new Error(tooLarge)
      const provider = providerOf(chainId)
      if (provider === undefined) throw new Error(`no provider for ${chainId} that can build a payment`)
      const found = await assetOf(provider, asset)
      if (typeof found === 'string') throw new Error(found)
      const payerKey = decodeBase58(payer, 'payer')
      const recipientKey = decodeBase58(recipient.split(':')[2]!, 'recipient')
      const instructions =
        found.kind === 'sol'
          ? [solTransfer(payerKey, recipientKey, amount)]
          : tokenTransfer(payerKey, recipientKey, amount, found)
      const blockhash = decodeBase58(await provider.getLatestBlockhash!(), 'blockhash')
      const message = compileLegacyMessage(payerKey, instructions, blockhash)
      // One signature slot (the payer's), empty: the wallet's own method signs it after its review.
      const transaction = concatBytes(encodeShortVec(1), new Uint8Array(64), message)
      return { transaction: encodeBase64(transaction) }
    },
    txid(result) {
      const signature = (result as { signature?: unknown } | null)?.signature
      return typeof signature === 'string' ? signature : undefined
    },
  }
}

function addressBytes(text: string): Uint8Array | undefined {
  if (!base58Pattern.test(text)) return undefined
  const bytes = decodeBase58(text, 'address')
  return bytes.length === 32 ? bytes : undefined
}

const u64 = (value: bigint) => {
  // DataView would silently wrap a larger value.
  if (value < 0n || value > maxU64) throw new RangeError(tooLarge)
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, value, true)
  return out
}

const programKey = (address: string) => decodeBase58(address, 'program')

/** System program `Transfer` (instruction 2, lamports u64). */
function solTransfer(from: Uint8Array, to: Uint8Array, lamports: bigint): Instruction {
  return {
    program: programKey(systemProgram),
    accounts: [
      { key: from, signer: true, writable: true },
      { key: to, signer: false, writable: true },
    ],
    data: concatBytes(Uint8Array.of(2, 0, 0, 0), u64(lamports)),
  }
}

/** The recipient's associated token account created if missing, then `TransferChecked` (12) into it. */
function tokenTransfer(
  payer: Uint8Array,
  recipient: Uint8Array,
  amount: bigint,
  token: { mint: Uint8Array; program: Uint8Array; decimals: number },
): Instruction[] {
  const source = associatedTokenAccount(payer, token.mint, token.program)
  const destination = associatedTokenAccount(recipient, token.mint, token.program)
  const readonly = (key: Uint8Array) => ({ key, signer: false, writable: false })
  return [
    {
      program: programKey(associatedTokenProgram),
      accounts: [
        { key: payer, signer: true, writable: true },
        { key: destination, signer: false, writable: true },
        readonly(recipient),
        readonly(token.mint),
        readonly(programKey(systemProgram)),
        readonly(token.program),
      ],
      // CreateIdempotent.
      data: Uint8Array.of(1),
    },
    {
      program: token.program,
      accounts: [
        { key: source, signer: false, writable: true },
        readonly(token.mint),
        { key: destination, signer: false, writable: true },
        { key: payer, signer: true, writable: false },
      ],
      data: concatBytes(Uint8Array.of(12), u64(amount), Uint8Array.of(token.decimals)),
    },
  ]
}

/**
 * A legacy message: the fee payer first, then writable signers, read-only signers, writable and read-only
 * accounts (each key once, with the strongest role any instruction gives it), the blockhash, the instructions.
 */
export function compileLegacyMessage(
  feePayer: Uint8Array,
  instructions: readonly Instruction[],
  recentBlockhash: Uint8Array,
): Uint8Array {
  const roles = new Map<string, AccountMeta>()
  const add = (meta: AccountMeta) => {
    const id = meta.key.join(',')
    const known = roles.get(id)
    roles.set(
      id,
      known === undefined
        ? { ...meta }
        : { key: known.key, signer: known.signer || meta.signer, writable: known.writable || meta.writable },
    )
  }
  add({ key: feePayer, signer: true, writable: true })
  for (const instruction of instructions) {
    for (const meta of instruction.accounts) add(meta)
    add({ key: instruction.program, signer: false, writable: false })
  }
  const all = [...roles.values()]
  const rank = (meta: AccountMeta) => (meta.signer ? 0 : 2) + (meta.writable ? 0 : 1)
  // A stable sort keeps the fee payer first among the writable signers.
  const keys = all.sort((a, b) => rank(a) - rank(b))
  const indexOf = (key: Uint8Array) => keys.findIndex((meta) => meta.key.join(',') === key.join(','))
  const count = (test: (meta: AccountMeta) => boolean) => keys.filter(test).length
  return concatBytes(
    Uint8Array.of(
      count((meta) => meta.signer),
      count((meta) => meta.signer && !meta.writable),
      count((meta) => !meta.signer && !meta.writable),
    ),
    encodeShortVec(keys.length),
    ...keys.map((meta) => meta.key),
    recentBlockhash,
    encodeShortVec(instructions.length),
    ...instructions.flatMap((instruction) => [
      Uint8Array.of(indexOf(instruction.program)),
      encodeShortVec(instruction.accounts.length),
      Uint8Array.from(instruction.accounts.map((meta) => indexOf(meta.key))),
      encodeShortVec(instruction.data.length),
      instruction.data,
    ]),
  )
}
