// Writes the solana conformance vectors test-vectors/solana/<method>.json.
// Run: npx tsx test/solana/buildVectors.ts && npx biome format --write test-vectors/solana
// Transactions are compiled by @solana/kit; keys are derived here with node:crypto (BIP-39 PBKDF2, SLIP-0010
// HMAC-SHA512) and exact signatures made by @solana/kit's WebCrypto Ed25519: nothing comes from src/solana.
import { createHmac, pbkdf2Sync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { base58, base64 } from '@scure/base'
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createKeyPairFromPrivateKeyBytes,
  createNoopSigner,
  createTransactionMessage,
  getAddressFromPublicKey,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
} from '@solana/kit'
import { createSignInMessageText } from '@solana/wallet-standard-util'
import { getTransferSolInstruction } from '@solana-program/system'
import {
  defaultVectorsDir,
  type VectorCase,
  type VectorFile,
  vectorFormat,
} from '../../src/conformance/vectors.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const mainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const wallet = { mnemonic, account: 0, now: 1700000000, approve: 'all' as const }
const source =
  "BIP-39 'abandon … about' mnemonic, SLIP-0010 Ed25519 at m/44'/501'/0'/0' (Phantom/Solflare default); WalletConnect Solana RPC reference (docs.walletconnect.network/wallet-sdk/chain-support/solana); transactions compiled with @solana/kit 8, signatures by @solana/kit signBytes; error codes per wallet-rpc ARCHITECTURE.md"
const license = 'MIT (@solana/kit); vectors are facts'

function slip10(seed: Uint8Array, path: number[]): Uint8Array {
  let node = createHmac('sha512', 'ed25519 seed').update(seed).digest()
  for (const index of path) {
    const data = Buffer.alloc(37)
    node.copy(data, 1, 0, 32)
    data.writeUInt32BE((index | 0x80000000) >>> 0, 33)
    node = createHmac('sha512', node.subarray(32)).update(data).digest()
  }
  return new Uint8Array(node.subarray(0, 32))
}

const seed = pbkdf2Sync(mnemonic, 'mnemonic', 2048, 64, 'sha512')
const keyPair = await createKeyPairFromPrivateKeyBytes(slip10(seed, [44, 501, 0, 0]), true)
const ours = await getAddressFromPublicKey(keyPair.publicKey)
const other = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')
const recent = blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k')
const sign = async (bytes: Uint8Array) => new Uint8Array(await signBytes(keyPair.privateKey, bytes))

function transfer(feePayer: typeof ours, source: typeof ours, amount: bigint, version: 0 | 'legacy' = 0) {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: recent, lastValidBlockHeight: 1n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getTransferSolInstruction({ source: createNoopSigner(source), destination: other, amount })],
        m,
      ),
  )
  const compiled = compileTransaction(message)
  return { base64: getBase64EncodedWireTransaction(compiled), message: new Uint8Array(compiled.messageBytes) }
}

/** The wire transaction with `signature` in slot `slot`. */
function withSignature(wire: string, slot: number, signature: Uint8Array): string {
  const bytes = base64.decode(wire)
  bytes.set(signature, 1 + 64 * slot)
  return base64.encode(bytes)
}

const out = defaultVectorsDir()
let total = 0
function write(method: string, description: string, cases: VectorCase[]) {
  const vector: VectorFile = {
    format: vectorFormat,
    namespace: 'solana',
    method,
    description,
    source,
    license,
    wallet,
    cases,
  }
  writeFileSync(join(out, 'solana', `${method}.json`), `${JSON.stringify(vector, null, 2)}\n`)
  total += cases.length
}
const request = (method: string, params: unknown, chainId = mainnet) => ({ chainId, method, params })

for (const method of ['solana_getAccounts', 'solana_requestAccounts']) {
  write(method, 'The wallet’s accounts as [{ pubkey }] (base58), no review.', [
    {
      name: 'the account at m/44’/501’/0’/0’',
      request: request(method, {}),
      expect: { result: [{ pubkey: ours }] },
    },
    {
      name: '--account 1 opens m/44’/501’/1’/0’',
      wallet: { account: 1 },
      request: request(method, {}),
      expect: {
        result: [
          {
            pubkey: await getAddressFromPublicKey(
              (await createKeyPairFromPrivateKeyBytes(slip10(seed, [44, 501, 1, 0]), true)).publicKey,
            ),
          },
        ],
      },
    },
  ])
}

const hello = new TextEncoder().encode('hello')
const v0 = transfer(ours, ours, 1_000_000n)
const utf8 = (text: string) => new TextEncoder().encode(text)
/** A Sign In With Solana message as @solana/wallet-standard-util's createSignInMessageText writes it. */
const siws = (fields: { domain?: string; address?: string; chain?: string; expirationTime?: string } = {}) =>
  createSignInMessageText({
    domain: fields.domain ?? 'example.org',
    address: fields.address ?? ours,
    statement: 'Sign in to example.org',
    uri: 'https://example.org/login',
    version: '1',
    chainId: fields.chain ?? 'mainnet',
    nonce: 'k3Jx9Qm2Vt',
    issuedAt: '2023-11-14T22:00:00Z',
    ...(fields.expirationTime === undefined ? {} : { expirationTime: fields.expirationTime }),
  })
const signIn = (text: string, origin = 'https://example.org') => ({
  ...request('solana_signMessage', { message: base58.encode(utf8(text)), pubkey: ours }),
  origin,
})

write('solana_signMessage', 'A detached Ed25519 signature over the base58 message bytes.', [
  {
    name: '"hello"',
    request: request('solana_signMessage', { message: base58.encode(hello), pubkey: ours }),
    expect: { result: { signature: base58.encode(await sign(hello)) } },
  },
  {
    name: 'verifiable by verifySolanaSignMessage',
    request: request('solana_signMessage', {
      message: base58.encode(new TextEncoder().encode('Sign in')),
      pubkey: ours,
    }),
    expect: { verify: { function: 'verifySolanaSignMessage' } },
  },
  {
    name: 'refused: 0xff prefix (off-chain message domain)',
    request: request('solana_signMessage', {
      message: base58.encode(new Uint8Array([0xff, 1, 2])),
      pubkey: ours,
    }),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: the bytes are a transaction message',
    request: request('solana_signMessage', { message: base58.encode(v0.message), pubkey: ours }),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: pubkey not ours (4100)',
    request: request('solana_signMessage', { message: base58.encode(hello), pubkey: other }),
    expect: { error: { code: 4100 } },
  },
  {
    name: 'refused: message not base58',
    request: request('solana_signMessage', { message: '0OIl', pubkey: ours }),
    expect: { error: { code: -32602 } },
  },
  // Sign In With Solana (github.com/phantom/sign-in-with-solana, "ABNF Message Format"): the wallet checks the
  // message against the request as for EIP-4361; each mismatch is refused before approval.
  {
    name: 'Sign In With Solana from the site it names: signed',
    request: signIn(siws()),
    expect: { result: { signature: base58.encode(await sign(utf8(siws()))) } },
  },
  {
    name: 'refused: Sign In With Solana for another site (uniswap.org asked by https://evil.example)',
    request: signIn(siws({ domain: 'uniswap.org' }), 'https://evil.example'),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: Sign In With Solana for a domain that only starts like the origin',
    request: signIn(siws({ domain: 'example.org.evil.example' })),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: Sign In With Solana naming another account than the signer',
    request: signIn(siws({ address: other })),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: Sign In With Solana naming devnet on a mainnet request',
    request: signIn(siws({ chain: 'devnet' })),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: Sign In With Solana that expired',
    request: signIn(siws({ expirationTime: '2023-11-01T00:00:00Z' })),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: a Sign In With Solana look-alike that does not parse (unknown cluster)',
    request: signIn(siws({ chain: 'mainnet-beta' })),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'user rejects (5000)',
    wallet: { approve: 'none' },
    request: request('solana_signMessage', { message: base58.encode(hello), pubkey: ours }),
    expect: { error: { code: 5000 } },
  },
  {
    name: 'unknown chain (5100)',
    request: request(
      'solana_signMessage',
      { message: base58.encode(hello), pubkey: ours },
      'solana:unknownchain',
    ),
    expect: { error: { code: 5100 } },
  },
])

const v0Signature = await sign(v0.message)
const legacy = transfer(ours, ours, 2_000_000n, 'legacy')
const sponsored = transfer(other, ours, 3n)
write(
  'solana_signTransaction',
  'Fills the wallet’s signer slot over the message bytes, keeps other slots, answers { signature, transaction }.',
  [
    {
      name: 'v0 SOL transfer: exact signature and signed transaction',
      request: request('solana_signTransaction', { transaction: v0.base64, pubkey: ours }),
      expect: {
        result: {
          signature: base58.encode(v0Signature),
          transaction: withSignature(v0.base64, 0, v0Signature),
        },
      },
    },
    {
      name: 'legacy transaction with a matching AppKit legacy copy',
      request: request('solana_signTransaction', {
        transaction: legacy.base64,
        pubkey: ours,
        feePayer: ours,
        recentBlockhash: recent,
      }),
      expect: { resultIncludes: { signature: base58.encode(await sign(legacy.message)) } },
    },
    {
      name: 'partial signing: a sponsor pays the fee',
      request: request('solana_signTransaction', { transaction: sponsored.base64 }),
      expect: { verify: { function: 'verifySolanaSignTransaction', options: { pubkey: ours } } },
    },
    {
      name: 'refused: legacy feePayer differs from the bytes',
      request: request('solana_signTransaction', { transaction: legacy.base64, feePayer: other }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: none of our keys must sign (4100)',
      request: request('solana_signTransaction', { transaction: transfer(other, other, 1n).base64 }),
      expect: { error: { code: 4100 } },
    },
    {
      name: 'refused: truncated transaction',
      request: request('solana_signTransaction', {
        transaction: base64.encode(base64.decode(v0.base64).subarray(0, 100)),
      }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'user rejects (5000)',
      wallet: { approve: 'none' },
      request: request('solana_signTransaction', { transaction: v0.base64 }),
      expect: { error: { code: 5000 } },
    },
  ],
)

const second = transfer(ours, ours, 4n)
write('solana_signAllTransactions', 'Every transaction signed in order under one approval; all or nothing.', [
  {
    name: 'two transactions, exact',
    request: request('solana_signAllTransactions', { transactions: [v0.base64, second.base64] }),
    expect: {
      result: {
        transactions: [
          withSignature(v0.base64, 0, v0Signature),
          withSignature(second.base64, 0, await sign(second.message)),
        ],
      },
    },
  },
  {
    name: 'refused: a malformed entry (-32602)',
    request: request('solana_signAllTransactions', { transactions: [v0.base64, 'AAAA'] }),
    expect: { error: { code: -32602 } },
  },
  {
    name: 'refused: empty list',
    request: request('solana_signAllTransactions', { transactions: [] }),
    expect: { error: { code: -32602 } },
  },
])

write('solana_signAndSendTransaction', 'Signs and broadcasts once; needs a provider for the chain.', [
  {
    name: 'signing-only chain answers 5101',
    request: request('solana_signAndSendTransaction', { transaction: v0.base64 }),
    expect: { error: { code: 5101 } },
  },
  {
    name: 'refused before anything else: malformed sendOptions',
    request: request('solana_signAndSendTransaction', {
      transaction: v0.base64,
      sendOptions: { maxRetries: -1 },
    }),
    expect: { error: { code: -32602 } },
  },
])

console.log(`${total} solana cases written`)
