// Writes the conformance vectors test-vectors/<namespace>/<method>.json.
// Run: npx tsx test/conformance/buildVectors.ts && npx biome format --write test-vectors
// Exact results are published values (BIP-137/322 research recomputations, viem and eth-sig-util test vectors,
// TON Connect layouts reproduced from walletkit's fixture) or computed here with libraries independent of the
// wallet's signer (@metamask/eth-sig-util, @scure/btc-signer). Everything else is a verification rule.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as ecc from '@bitcoinerlab/secp256k1'
import { personalSign, SignTypedDataVersion, signTypedData } from '@metamask/eth-sig-util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { Address, beginCell } from '@ton/core'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import {
  defaultVectorsDir,
  keysOf,
  type VectorCase,
  type VectorFile,
  vectorFormat,
} from '../../src/conformance/vectors.js'

const abandon =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const junk = 'test test test test test test test test test test test junk'
const hospital =
  'hospital stove relief fringe tongue always charge angry urge sentence again match nerve inquiry senior coconut label tumble carry category beauty bean road solution'
const now = 1700000000
const out = defaultVectorsDir()

/** Writes a vector file with every case marked `keys` (fixed or any, by keysOf's rule unless the case says). */
function write(vector: Omit<VectorFile, 'format'>): number {
  const file = join(out, vector.namespace, `${vector.method}.json`)
  const marked: VectorFile = {
    format: vectorFormat,
    ...vector,
    cases: vector.cases.map(({ name, ...rest }) => ({
      name,
      keys: keysOf({ format: vectorFormat, ...vector }, { name, ...rest }),
      ...rest,
    })),
  }
  writeFileSync(file, `${JSON.stringify(marked, null, 2)}\n`)
  return vector.cases.length
}

let total = 0

// ---------------------------------------------------------------- eip155
const eth = {
  chain: 'eip155:1',
  anvil: 'eip155:31337',
  me: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  key: Buffer.from('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'hex'),
  other: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const,
}
const ethWallet = { mnemonic: junk, account: 0, now, approve: 'all' as const }
const ethSource =
  "test…junk mnemonic, m/44'/60'/0'/0/0 (viem src/accounts/mnemonicToAccount.test.ts); WalletConnect eip155 RPC reference; error codes per wallet-rpc ARCHITECTURE.md (EIP-1193 4001/4100, CAIP-25 5100/5101, JSON-RPC -32602)"

/** An EIP-4361 message, laid out as the EIP's example (eips.ethereum.org/EIPS/eip-4361, "Example message"). */
function siwe(fields: { domain?: string; address?: string; chain?: string; expirationTime?: string } = {}) {
  return [
    `${fields.domain ?? 'example.org'} wants you to sign in with your Ethereum account:`,
    fields.address ?? eth.me,
    '',
    'Sign in to example.org',
    '',
    'URI: https://example.org/login',
    'Version: 1',
    `Chain ID: ${fields.chain ?? '1'}`,
    'Nonce: k3Jx9Qm2Vt',
    'Issued At: 2023-11-14T22:00:00Z',
    ...(fields.expirationTime === undefined ? [] : [`Expiration Time: ${fields.expirationTime}`]),
  ].join('\n')
}
const siweRequest = (message: string, origin = 'https://example.org') => ({
  chainId: eth.chain,
  origin,
  method: 'personal_sign',
  params: [message, eth.me],
})

total += write({
  namespace: 'eip155',
  method: 'personal_sign',
  description: 'EIP-191 personal messages: 0x-hex is signed as bytes, anything else as UTF-8.',
  source: `${ethSource}; signature of "hello world" from viem src/accounts/privateKeyToAccount.test.ts`,
  license: 'MIT (viem), ISC (eth-sig-util); vectors are facts',
  wallet: ethWallet,
  cases: [
    {
      name: 'hex message "hello world" (viem vector)',
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f20776f726c64', eth.me] },
      expect: {
        result:
          '0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b',
      },
    },
    {
      name: 'UTF-8 text "hello world" signs the same bytes',
      request: { chainId: eth.chain, method: 'personal_sign', params: ['hello world', eth.me.toLowerCase()] },
      expect: {
        result:
          '0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b',
      },
    },
    {
      name: 'binary 32-byte message (eth-sig-util "test II" message)',
      request: {
        chainId: eth.chain,
        method: 'personal_sign',
        params: ['0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f', eth.me],
      },
      expect: {
        result: personalSign({
          privateKey: eth.key,
          data: '0x0cc175b9c0f1b6a831c399e26977266192eb5ffee6ae2fec3ad71c777531578f',
        }),
      },
    },
    {
      name: 'message on the local chain id verifies',
      request: { chainId: eth.anvil, method: 'personal_sign', params: ['0x', eth.me] },
      expect: { verify: { function: 'verifyPersonalSign' } },
    },
    {
      name: "account 1 (m/44'/60'/0'/0/1, anvil dev account #1)",
      wallet: { account: 1 },
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f', eth.other] },
      expect: {
        result: personalSign({
          privateKey: Buffer.from('59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', 'hex'),
          data: '0x68656c6c6f',
        }),
      },
    },
    {
      name: 'an address this wallet does not hold',
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f', eth.other] },
      expect: { error: { code: 4100 } },
    },
    {
      name: 'a malformed address',
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f', '0x3d'] },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the address missing',
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f'] },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      request: { chainId: eth.chain, method: 'personal_sign', params: ['0x68656c6c6f', eth.me] },
      expect: { error: { code: 4001 } },
    },
    {
      name: 'a chain the wallet does not serve',
      request: { chainId: 'eip155:999999', method: 'personal_sign', params: ['0x68656c6c6f', eth.me] },
      expect: { error: { code: 5100 } },
    },
    // Sign-In with Ethereum (EIP-4361): checked against the request before approval; each mismatch refused.
    {
      name: 'Sign-In with Ethereum from the site it names: signed',
      request: siweRequest(siwe()),
      expect: { result: personalSign({ privateKey: eth.key, data: siwe() }) },
    },
    {
      name: 'refused: Sign-In with Ethereum for another site (uniswap.org asked by https://evil.example)',
      request: siweRequest(siwe({ domain: 'uniswap.org' }), 'https://evil.example'),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: Sign-In with Ethereum for a domain that only starts like the origin',
      request: siweRequest(siwe({ domain: 'example.org.evil.example' })),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: Sign-In with Ethereum naming another account than the signer',
      request: siweRequest(siwe({ address: eth.other })),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: Sign-In with Ethereum naming chain 137 on an eip155:1 request',
      request: siweRequest(siwe({ chain: '137' })),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: Sign-In with Ethereum that expired',
      request: siweRequest(siwe({ expirationTime: '2023-11-01T00:00:00Z' })),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'refused: a Sign-In with Ethereum look-alike that does not parse (lowercase address)',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: siweRequest(siwe({ address: eth.me.toLowerCase() })),
      expect: { error: { code: -32602 } },
    },
  ],
})

const ethSignAnswers = (code: number) => ({
  oneOf: [
    { error: { code: 5101 } },
    { error: { code: 4200 } },
    { error: { code: -32601 } },
    code === 0 ? { verify: { function: 'verifyEthSign' } } : { error: { code } },
  ],
})
total += write({
  namespace: 'eip155',
  method: 'eth_sign',
  description:
    'eth_sign is blind signing: a wallet refuses it (5101/4200/-32601) or answers the EIP-191-prefixed signature execution-apis defines — never a raw-hash signature.',
  source: `${ethSource}; ethereum/execution-apis eth_sign; MetaMask removed eth_sign (eth-json-rpc-middleware PR #320)`,
  license: 'CC0 (execution-apis), vectors are facts',
  wallet: ethWallet,
  cases: [
    {
      name: 'a 32-byte hash: refused, or prefixed (a raw-hash signature fails)',
      request: {
        chainId: eth.chain,
        method: 'eth_sign',
        params: [eth.me, '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53'],
      },
      expect: ethSignAnswers(0),
    },
    {
      name: 'short hex data: refused, or prefixed',
      request: { chainId: eth.chain, method: 'eth_sign', params: [eth.me, '0xdeadbeef'] },
      expect: ethSignAnswers(0),
    },
    {
      name: 'an address this wallet does not hold',
      request: { chainId: eth.chain, method: 'eth_sign', params: [eth.other, '0xdeadbeef'] },
      expect: ethSignAnswers(4100),
    },
  ],
})

// The EIP-712 "Ether Mail" example (ethereum/EIPs assets/eip-712/Example.js, CC0), from its vector file.
const mail = JSON.parse(
  readFileSync(new URL('../../test-vectors/eip155/eip712-mail.json', import.meta.url), 'utf8'),
).typedData
const mailSignature = signTypedData({
  privateKey: eth.key,
  data: mail as never,
  version: SignTypedDataVersion.V4,
})
const minimal = {
  types: { EIP712Domain: [], Message: [{ name: 'data', type: 'string' }] },
  primaryType: 'Message',
  domain: {},
  message: { data: 'test' },
}
const typedSource = `${ethSource}; EIP-712 Mail example (ethereum/EIPs assets/eip-712/Example.js); signatures computed with @metamask/eth-sig-util signTypedData V4 (the research value 0x6ea8bb30… for this key)`
for (const method of ['eth_signTypedData_v4', 'eth_signTypedData', 'eth_signTypedData_v3'] as const) {
  // Last in every file: appended cases keep the ids of the others.
  const userRejects: VectorCase = {
    name: 'the user rejects',
    wallet: { approve: 'none' },
    request: { chainId: eth.chain, method, params: [eth.me, mail] },
    expect: { error: { code: 4001 } },
  }
  const cases: VectorCase[] = [
    {
      name: 'EIP-712 Mail example',
      request: { chainId: eth.chain, method, params: [eth.me, mail] },
      expect: { result: mailSignature },
    },
    {
      name: 'typed data as a JSON string',
      request: { chainId: eth.chain, method, params: [eth.me, JSON.stringify(mail)] },
      expect: { result: mailSignature },
    },
    {
      name: 'domain.chainId of another chain is refused',
      request: { chainId: eth.anvil, method, params: [eth.me, mail] },
      expect: { error: { code: -32602 } },
    },
  ]
  if (method === 'eth_signTypedData_v4') {
    cases.push(
      {
        name: 'minimal message with an empty domain (eth-sig-util vector)',
        request: { chainId: eth.chain, method, params: [eth.me, minimal] },
        expect: {
          result: signTypedData({
            privateKey: eth.key,
            data: minimal as never,
            version: SignTypedDataVersion.V4,
          }),
        },
      },
      {
        name: 'domain.chainId as a hex string of the request chain',
        request: {
          chainId: eth.chain,
          method,
          params: [eth.me, { ...mail, domain: { ...mail.domain, chainId: '0x1' } }],
        },
        expect: { verify: { function: 'verifyEthSignTypedData' } },
      },
      {
        name: 'an address this wallet does not hold',
        request: { chainId: eth.chain, method, params: [eth.other, mail] },
        expect: { error: { code: 4100 } },
      },
      {
        name: 'primaryType not among the types',
        request: { chainId: eth.chain, method, params: [eth.me, { ...mail, primaryType: 'Letter' }] },
        expect: { error: { code: -32602 } },
      },
      userRejects,
    )
  } else cases.push(userRejects)
  total += write({
    namespace: 'eip155',
    method,
    description: 'EIP-712 typed data; the domain chainId, when present, must be the request chain.',
    source: typedSource,
    license: 'CC0 (EIP-712), ISC (eth-sig-util)',
    wallet: ethWallet,
    cases,
  })
}

const tx1559 = {
  from: eth.me,
  to: eth.other,
  value: '0xde0b6b3a7640000',
  gas: '0x5208',
  maxFeePerGas: '0x4a817c800',
  maxPriorityFeePerGas: '0x0',
  nonce: '0x0',
}
total += write({
  namespace: 'eip155',
  method: 'eth_signTransaction',
  description:
    'Signed, not sent: from ours, replay-protected for the request chain, fields exactly as requested.',
  source: `${ethSource}; the EIP-1559 vector of viem src/accounts/privateKeyToAccount.test.ts; bounds from research/ethereum.md §3.8`,
  license: 'MIT (viem)',
  wallet: ethWallet,
  cases: [
    {
      name: 'fully specified EIP-1559 transfer (viem vector)',
      request: { chainId: eth.chain, method: 'eth_signTransaction', params: [tx1559] },
      expect: {
        result:
          '0x02f86f0180808504a817c8008252089470997970c51812dc3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c001a0f40a2d2ae9638056cafbe9083c7125edc8555e0e715db0984dd859a5c6dfac57a020f36fd0b32bef4d6d75c62f220e59c5fb60c244ca3b361e750985ee5c3a0931',
      },
    },
    {
      name: 'fully specified legacy transaction (EIP-155 example fields)',
      request: {
        chainId: eth.chain,
        method: 'eth_signTransaction',
        params: [
          {
            from: eth.me,
            to: '0x3535353535353535353535353535353535353535',
            value: '0xde0b6b3a7640000',
            gas: '0x5208',
            gasPrice: '0x4a817c800',
            nonce: '0x9',
          },
        ],
      },
      expect: { verify: { function: 'verifyEthSignTransaction' } },
    },
    {
      name: 'contract call with data',
      request: {
        chainId: eth.chain,
        method: 'eth_signTransaction',
        params: [{ ...tx1559, value: '0x0', gas: '0x186a0', data: '0xa9059cbb' + '00'.repeat(64) }],
      },
      expect: { verify: { function: 'verifyEthSignTransaction' } },
    },
    ...(
      [
        ['value of 2^256', { value: `0x1${'0'.repeat(64)}` }],
        ['gas of 2^64', { gas: '0x10000000000000000' }],
        ['odd-length data', { data: '0x123' }],
        ['decimal string value', { value: '1000' }],
        ['a chainId field for another chain', { chainId: '0x5' }],
      ] as const
    ).map(([name, change]) => ({
      name,
      request: { chainId: eth.chain, method: 'eth_signTransaction', params: [{ ...tx1559, ...change }] },
      expect: { error: { code: -32602 } },
    })),
    {
      name: 'from an address this wallet does not hold',
      request: {
        chainId: eth.chain,
        method: 'eth_signTransaction',
        params: [{ ...tx1559, from: eth.other }],
      },
      expect: { error: { code: 4100 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      request: { chainId: eth.chain, method: 'eth_signTransaction', params: [tx1559] },
      expect: { error: { code: 4001 } },
    },
  ],
})

const sendTx = { from: eth.me, to: eth.other, value: '0x1' }
total += write({
  namespace: 'eip155',
  method: 'eth_sendTransaction',
  description:
    'Filled (nonce, gas, fees), signed, broadcast to the local anvil node; the hash is keccak256 of the raw transaction.',
  source: ethSource,
  license: 'MIT',
  wallet: ethWallet,
  cases: [
    {
      name: '1 wei transfer, wallet fills nonce, gas and fees',
      chain: 'anvil',
      request: { chainId: eth.anvil, method: 'eth_sendTransaction', params: [sendTx] },
      expect: { verify: { function: 'verifyEthSendTransaction' } },
    },
    {
      name: 'legacy gasPrice and data to an account',
      chain: 'anvil',
      request: {
        chainId: eth.anvil,
        method: 'eth_sendTransaction',
        params: [{ ...sendTx, gasPrice: '0x77359400', gas: '0x6000', data: '0x1234' }],
      },
      expect: { verify: { function: 'verifyEthSendTransaction' } },
    },
    {
      name: 'from an address this wallet does not hold',
      request: {
        chainId: eth.anvil,
        method: 'eth_sendTransaction',
        params: [{ ...sendTx, from: eth.other }],
      },
      expect: { error: { code: 4100 } },
    },
    {
      name: 'value of 2^256',
      request: {
        chainId: eth.anvil,
        method: 'eth_sendTransaction',
        params: [{ ...sendTx, value: `0x1${'0'.repeat(64)}` }],
      },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      chain: 'anvil',
      request: { chainId: eth.anvil, method: 'eth_sendTransaction', params: [sendTx] },
      expect: { error: { code: 4001 } },
    },
  ],
})

// A raw transaction signed independently (viem vector shape, anvil account #2, nonce 0, chain 31337).
const { privateKeyToAccount } = await import('viem/accounts')
const account2 = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const raw31337 = await account2.signTransaction({
  chainId: 31337,
  type: 'eip1559',
  nonce: 0,
  gas: 21000n,
  maxFeePerGas: 10_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  to: eth.other,
  value: 1n,
})
total += write({
  namespace: 'eip155',
  method: 'eth_sendRawTransaction',
  description: 'Broadcast a signed transaction as given; refuse one for another chain.',
  source: `${ethSource}; EIP-155 example transaction (ethereum/EIPs EIPS/eip-155.md); anvil dev account #2`,
  license: 'CC0 (EIP-155)',
  wallet: ethWallet,
  cases: [
    {
      name: 'EIP-1559 transfer signed by anvil account #2',
      chain: 'anvil',
      request: { chainId: eth.anvil, method: 'eth_sendRawTransaction', params: [raw31337] },
      expect: { verify: { function: 'verifyEthSendRawTransaction' } },
    },
    {
      name: 'the EIP-155 example (chain 1) sent on chain 31337',
      request: {
        chainId: eth.anvil,
        method: 'eth_sendRawTransaction',
        params: [
          '0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83',
        ],
      },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'bytes that are not a transaction',
      request: { chainId: eth.anvil, method: 'eth_sendRawTransaction', params: ['0xdeadbeef'] },
      expect: { error: { code: -32602 } },
    },
  ],
})

// EIP-5792 batches and EIP-3326 chain switching. Cases naming the suite's own account need its keys.
const batchSource = `${ethSource}; EIP-5792 (eips.ethereum.org/EIPS/eip-5792, Final: wallet_sendCalls 2.0.0, error codes 5700-5760)`
const dead = '0x000000000000000000000000000000000000dEaD'
const oneCall = [{ to: dead, value: '0x1' }]
const batch = (fields: Record<string, unknown> = {}) => [
  { version: '2.0.0', chainId: '0x7a69', from: eth.me, atomicRequired: false, calls: oneCall, ...fields },
]
// anvil-prague (eip155:31338): the runner deploys OpenZeppelin's ERC-7821 executor and configures the wallet
// with it as the chain's EIP-7702 delegate. Each case uses its own dev account, so none depends on another's
// upgrade: 0 is upgraded by the atomic batch, 1 declines its upgrade, 2 is never touched.
const prague = {
  chain: 'eip155:31338',
  hex: '0x7a6a',
  account2: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
}
const pragueSource =
  'EIP-5792 (atomic capability, 5750 Rejected upgrade); EIP-7702 (eips.ethereum.org/EIPS/eip-7702: set-code transaction; a self-sponsored authorization uses nonce + 1); ERC-7821 execute(bytes32 mode, bytes executionData), batch mode 0x01; delegate: OpenZeppelin Contracts 5.x executor (packages/devchains/src/eip7702Executor.ts)'
const sendCallsCase = (name: string, params: unknown, code: number, keys: 'fixed' | 'any' = 'fixed') => ({
  name,
  keys,
  request: { chainId: eth.anvil, method: 'wallet_sendCalls', params },
  expect: { error: { code } },
})
total += write({
  namespace: 'eip155',
  method: 'wallet_getCapabilities',
  description: 'EIP-5792 capabilities of an account the wallet holds; refusals for others.',
  source: batchSource,
  license: 'CC0 (EIPs)',
  wallet: ethWallet,
  cases: [
    {
      name: 'an address the wallet does not hold',
      request: { chainId: eth.anvil, method: 'wallet_getCapabilities', params: [dead, ['0x7a69']] },
      expect: { error: { code: 4100 } },
    },
    {
      name: 'chain ids that are not hex quantities',
      keys: 'fixed',
      request: { chainId: eth.anvil, method: 'wallet_getCapabilities', params: [eth.me, ['31337']] },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'an address that is not one',
      request: { chainId: eth.anvil, method: 'wallet_getCapabilities', params: ['0x1234', ['0x7a69']] },
      expect: { error: { code: -32602 } },
    },
    {
      name: "on a chain with a delegate, an account not yet delegated: atomic 'ready' (its first atomic batch upgrades it once the user approves)",
      keys: 'fixed',
      wallet: { account: 2 },
      chain: 'anvil-prague',
      source: pragueSource,
      request: {
        chainId: prague.chain,
        method: 'wallet_getCapabilities',
        params: [prague.account2, [prague.hex]],
      },
      expect: {
        resultIncludes: {
          [prague.hex]: { atomic: { status: 'ready' }, dataSuffix: { supported: true } },
        },
      },
    },
  ],
})
total += write({
  namespace: 'eip155',
  method: 'wallet_sendCalls',
  description:
    'EIP-5792 2.0.0 batches: a sequential batch sent on anvil; every refusal code before anything is signed.',
  source: batchSource,
  license: 'CC0 (EIPs)',
  wallet: ethWallet,
  cases: [
    {
      name: "one call, not atomic, on anvil: the wallet's id answered back",
      keys: 'fixed',
      chain: 'anvil',
      request: {
        chainId: eth.anvil,
        method: 'wallet_sendCalls',
        params: batch({ id: 'conformance-batch-1' }),
      },
      expect: {
        resultIncludes: { id: 'conformance-batch-1' },
        verify: { function: 'verifyWalletSendCalls' },
      },
    },
    {
      name: 'two calls, atomic, on a chain with a delegate: one type-4 transaction upgrading the account and executing both',
      keys: 'fixed',
      chain: 'anvil-prague',
      source: pragueSource,
      request: {
        chainId: prague.chain,
        method: 'wallet_sendCalls',
        params: batch({
          chainId: prague.hex,
          atomicRequired: true,
          id: 'conformance-atomic-1',
          calls: [
            { to: dead, value: '0x1' },
            { to: eth.other, value: '0x2' },
          ],
        }),
      },
      expect: {
        resultIncludes: { id: 'conformance-atomic-1' },
        verify: { function: 'verifyWalletSendCalls' },
      },
    },
    {
      name: 'atomic, the upgrade declined by the user: 5750 (rejected upgrade), nothing sent',
      keys: 'fixed',
      wallet: { account: 1, approve: 'none' },
      chain: 'anvil-prague',
      source: pragueSource,
      request: {
        chainId: prague.chain,
        method: 'wallet_sendCalls',
        params: batch({ chainId: prague.hex, from: eth.other, atomicRequired: true }),
      },
      expect: { error: { code: 5750 } },
    },
    sendCallsCase(
      'atomic required, no delegate: refused before any chain read',
      batch({ atomicRequired: true }),
      5760,
    ),
    sendCallsCase('from an address the wallet does not hold', batch({ from: dead }), 4100, 'any'),
    sendCallsCase('a chain the wallet does not serve', batch({ chainId: '0x2a' }), 5710),
    sendCallsCase(
      'a non-optional capability the wallet lacks',
      batch({ capabilities: { paymasterService: { url: 'https://paymaster.example' } } }),
      5700,
    ),
    sendCallsCase('1000 calls in one batch', batch({ calls: Array(1000).fill(oneCall[0]) }), 5740),
    sendCallsCase(
      '2.0.0 without atomicRequired',
      [{ version: '2.0.0', chainId: '0x7a69', from: eth.me, calls: oneCall }],
      -32602,
    ),
    sendCallsCase('a decimal value', batch({ calls: [{ to: dead, value: '1' }] }), -32602),
    sendCallsCase('no calls', batch({ calls: [] }), -32602),
    {
      name: 'not atomic, the user rejects: 4001 (EIP-1193; 5750 is only for a declined upgrade)',
      wallet: { approve: 'none' },
      chain: 'anvil',
      request: { chainId: eth.anvil, method: 'wallet_sendCalls', params: batch() },
      expect: { error: { code: 4001 } },
    },
  ],
})
total += write({
  namespace: 'eip155',
  method: 'wallet_getCallsStatus',
  description: 'EIP-5792 status of a batch; 5730 for an id the wallet never saw.',
  source: batchSource,
  license: 'CC0 (EIPs)',
  wallet: ethWallet,
  cases: [
    {
      name: 'an unknown batch id',
      request: {
        chainId: eth.anvil,
        method: 'wallet_getCallsStatus',
        params: ['0x00000000000000000000000000000000000000000000000000000000deadbeef'],
      },
      expect: { error: { code: 5730 } },
    },
    {
      name: 'an id that is not a string',
      request: { chainId: eth.anvil, method: 'wallet_getCallsStatus', params: [42] },
      expect: { error: { code: -32602 } },
    },
  ],
})
total += write({
  namespace: 'eip155',
  method: 'wallet_switchEthereumChain',
  description:
    "EIP-3326: null for a chain the wallet serves (the params' chainId is the target), 4902 for one it does not.",
  source: "EIP-3326 (eips.ethereum.org/EIPS/eip-3326); EIP-1193 / MetaMask 4902 'Unrecognized chain ID'",
  license: 'CC0 (EIPs)',
  wallet: ethWallet,
  cases: [
    {
      name: 'the chain the request is on',
      request: { chainId: eth.anvil, method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a69' }] },
      expect: { result: null },
      keys: 'any',
    },
    {
      name: 'a chain the wallet does not know',
      request: {
        chainId: eth.anvil,
        method: 'wallet_switchEthereumChain',
        params: [{ chainId: '0xdeadbeef' }],
      },
      expect: { error: { code: 4902 } },
    },
    {
      name: 'a decimal chain id',
      request: { chainId: eth.anvil, method: 'wallet_switchEthereumChain', params: [{ chainId: '31337' }] },
      expect: { error: { code: -32602 } },
    },
  ],
})

// ---------------------------------------------------------------- bip122
const BTC = 'bip122:000000000019d6689c085ae165831e93'
const REGTEST = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
const TESTNET = 'bip122:000000000933ea01ad0ee984209779ba'
const addr = {
  p2wpkh: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  p2wpkh1: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
  p2tr: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
  p2sh: '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
  p2pkh: '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
  account1: 'bc1qku0qh0mc00y8tk0n65x2tqw4trlspak0fnjmfz',
  regtest: 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk',
  regtestChange: 'bcrt1q9u62588spffmq4dzjxsr5l297znf3z6jkgnhsw',
  foreign: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  testnet: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
}
const btcWallet = { mnemonic: abandon, account: 0, now, approve: 'all' as const }
const btcSource =
  'abandon…about mnemonic; addresses from bitcoin/bips bip-0084/bip-0086 and satoshilabs/slips slip-0132 test vectors; WalletConnect bitcoin.mdx (signMessage, getAccountAddresses, signPsbt, sendTransfer)'
const sign = (params: Record<string, unknown>, chainId = BTC) => ({ chainId, method: 'signMessage', params })
const verifyMessage = (options: Record<string, unknown> = { network: 'mainnet' }) => ({
  verify: { function: 'verifySignMessage', options },
})
total += write({
  namespace: 'bip122',
  method: 'signMessage',
  description:
    'ecdsa = BIP-137 with the header of the address type; bip322 = BIP-322 simple (legacy for P2PKH).',
  source: `${btcSource}; BIP-137 signatures of "Hello World" and "" for m/84'/0'/0'/0/0 (RFC 6979) recomputed in research/bitcoin.md §4.2 and checked with bip322-js`,
  license: 'BSD-2-Clause (BIPs), MIT (bitcoinjs-message)',
  wallet: btcWallet,
  cases: [
    {
      name: 'ecdsa, P2WPKH account, "Hello World" (RFC 6979)',
      request: sign({ account: addr.p2wpkh, message: 'Hello World' }),
      expect: {
        resultIncludes: {
          address: addr.p2wpkh,
          signature:
            '270ebad8e3c0a248272efb8d495e35d41a4e919eca730a83bafc3fac9677cfcee314bb4a5e015424c872d391bcc48893ebdfedcefabb6d5415e3d8d68b10f75d28',
        },
        verify: verifyMessage().verify,
      },
    },
    {
      name: 'ecdsa, empty message',
      request: sign({ account: addr.p2wpkh, message: '', protocol: 'ecdsa' }),
      expect: {
        resultIncludes: {
          signature:
            '282fda2852c76af55e692ac77f428e15e1cb1ad6feb4a935ee326577792cb712fb57393b92c69bb8c06dc7e52420378b1b48b4585d3602581604ff95b5afda3121',
        },
      },
    },
    {
      name: 'ecdsa, P2SH-P2WPKH address',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({ account: addr.p2wpkh, address: addr.p2sh, message: 'Hello World' }),
      expect: verifyMessage(),
    },
    {
      name: 'ecdsa, P2PKH address',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({ account: addr.p2wpkh, address: addr.p2pkh, message: 'Hello World' }),
      expect: verifyMessage(),
    },
    {
      name: 'bip322, P2WPKH',
      request: sign({ account: addr.p2wpkh, message: 'Hello World', protocol: 'bip322' }),
      expect: verifyMessage(),
    },
    {
      name: 'bip322, P2TR (BIP-86 tweaked key)',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({ account: addr.p2wpkh, address: addr.p2tr, message: 'Hello World', protocol: 'bip322' }),
      expect: verifyMessage(),
    },
    {
      name: 'bip322, P2SH-P2WPKH',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({ account: addr.p2wpkh, address: addr.p2sh, message: 'Hello World', protocol: 'bip322' }),
      expect: verifyMessage(),
    },
    {
      name: 'bip322, P2PKH (legacy format)',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({
        account: addr.p2wpkh,
        address: addr.p2pkh,
        message: 'Hello World',
        protocol: 'bip322',
      }),
      expect: verifyMessage(),
    },
    {
      name: 'bip322, multi-line UTF-8 message',
      request: sign({
        account: addr.p2wpkh,
        message: 'Sign in to example.com\nNonce: 42 ✓',
        protocol: 'bip322',
      }),
      expect: verifyMessage(),
    },
    {
      name: 'ecdsa on a taproot address: refused, or a valid answer',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      request: sign({ account: addr.p2wpkh, address: addr.p2tr, message: 'Hello World' }),
      expect: { oneOf: [{ error: { code: -32602 } }, verifyMessage()] },
    },
    {
      name: 'regtest account',
      request: sign({ account: addr.regtest, message: 'Hello World' }, REGTEST),
      expect: verifyMessage({ network: 'regtest' }),
    },
    {
      name: 'testnet account',
      request: sign({ account: addr.testnet, message: 'Hello World', protocol: 'bip322' }, TESTNET),
      expect: verifyMessage({ network: 'testnet' }),
    },
    {
      name: "account 1 (m/84'/0'/1'/0/0)",
      wallet: { account: 1 },
      request: sign({ account: addr.account1, message: 'Hello World', protocol: 'bip322' }),
      expect: verifyMessage(),
    },
    {
      name: 'an address of another wallet',
      request: sign({ account: addr.p2wpkh, address: addr.foreign, message: 'x' }),
      expect: { error: { code: 4100 } },
    },
    {
      name: 'a testnet address on mainnet',
      request: sign({ account: addr.testnet, message: 'x' }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'an unknown protocol',
      request: sign({ account: addr.p2wpkh, message: 'x', protocol: 'schnorr' }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the message missing',
      request: sign({ account: addr.p2wpkh }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      request: sign({ account: addr.p2wpkh, message: 'x' }),
      expect: { error: { code: 5000 } },
    },
  ],
})

const hdRoot = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(abandon))
const regtestNet = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
const regtestAt = (path: string) =>
  btc.p2wpkh(Uint8Array.from(hdRoot.derivePath(path).publicKey), regtestNet).address!
const receive5 = regtestAt("m/84'/1'/0'/0/5")
const change2 = regtestAt("m/84'/1'/0'/1/2")
if (regtestAt("m/84'/1'/0'/0/0") !== addr.regtest) throw new Error('derivation')

// A fresh key with no provider has no used address: every listed address is unused, and the gap limit
// (fewer than 20 unused) applies to the whole listing.
const staticListing = (network: string) => ({
  verify: { function: 'verifyGetAccountAddresses', options: { network, usedAddresses: [] } },
})

total += write({
  namespace: 'bip122',
  method: 'getAccountAddresses',
  description: 'The account address first, keys and paths that derive each address, intentions respected.',
  source: btcSource,
  license: 'BSD-2-Clause (BIPs)',
  wallet: btcWallet,
  cases: [
    {
      name: 'mainnet account, no provider (static minimum)',
      request: { chainId: BTC, method: 'getAccountAddresses', params: { account: addr.p2wpkh } },
      expect: staticListing('mainnet'),
    },
    {
      name: 'intentions ["payment"]',
      request: {
        chainId: BTC,
        method: 'getAccountAddresses',
        params: { account: addr.p2wpkh, intentions: ['payment'] },
      },
      expect: staticListing('mainnet'),
    },
    {
      name: 'intentions ["ordinal"]',
      request: {
        chainId: BTC,
        method: 'getAccountAddresses',
        params: { account: addr.p2wpkh, intentions: ['ordinal'] },
      },
      expect: staticListing('mainnet'),
    },
    {
      name: 'regtest account',
      request: { chainId: REGTEST, method: 'getAccountAddresses', params: { account: addr.regtest } },
      expect: staticListing('regtest'),
    },
    {
      name: 'coins on receive index 5 and change index 2 are listed (gap limit respected)',
      chain: 'bitcoin-regtest',
      fund: [
        { address: receive5, amount: '150000' },
        { address: change2, amount: '250000' },
      ],
      request: { chainId: REGTEST, method: 'getAccountAddresses', params: { account: addr.regtest } },
      expect: {
        verify: {
          function: 'verifyGetAccountAddresses',
          options: {
            network: 'regtest',
            fundedAddresses: [receive5, change2],
            usedAddresses: [receive5, change2],
          },
        },
      },
    },
    {
      name: 'the account of another wallet',
      request: { chainId: BTC, method: 'getAccountAddresses', params: { account: addr.foreign } },
      expect: { error: { code: 4100 } },
    },
    {
      name: 'not an address',
      request: { chainId: BTC, method: 'getAccountAddresses', params: { account: 'bc1qnotanaddress' } },
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a testnet chain with a mainnet account',
      request: { chainId: TESTNET, method: 'getAccountAddresses', params: { account: addr.p2wpkh } },
      expect: { error: { code: -32602 } },
    },
  ],
})

// PSBTs built with @scure/btc-signer (an implementation independent of the wallet's bitcoinjs-lib signer).
const root = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(abandon))
const pubAt = (path: string) => Uint8Array.from(root.derivePath(path).publicKey)
const foreignKey = sha256(new TextEncoder().encode('wallet-rpc conformance foreign key'))
const foreignPayment = btc.p2wpkh(secp256k1.getPublicKey(foreignKey, true))
const payments = {
  p2wpkh: btc.p2wpkh(pubAt("m/84'/0'/0'/0/0")),
  p2tr: btc.p2tr(pubAt("m/86'/0'/0'/0/0").slice(1)),
  p2sh: btc.p2sh(btc.p2wpkh(pubAt("m/49'/0'/0'/0/0"))),
  p2pkh: btc.p2pkh(pubAt("m/44'/0'/0'/0/0")),
}
if (payments.p2wpkh.address !== addr.p2wpkh || payments.p2tr.address !== addr.p2tr)
  throw new Error('derivation')
if (payments.p2sh.address !== addr.p2sh || payments.p2pkh.address !== addr.p2pkh)
  throw new Error('derivation')

/** A parent transaction paying `amount` to `script`, so inputs carry the full previous transaction. */
function parent(script: Uint8Array, amount: bigint, salt: number) {
  const tx = new btc.Transaction({ allowUnknownOutputs: true, version: 2 })
  tx.addOutput({ script, amount })
  tx.addInput({
    txid: hex.decode(salt.toString(16).padStart(64, '0')),
    index: 0,
    finalScriptSig: new Uint8Array([0x51]),
  })
  return { raw: tx.toBytes(true, false), id: tx.id }
}

type InputSpec = { kind: keyof typeof payments | 'foreign'; amount: bigint; sighashType?: number }
function psbt(inputs: InputSpec[], options: { signForeign?: boolean } = {}): string {
  const tx = new btc.Transaction({ allowUnknownOutputs: true, allowLegacyWitnessUtxo: true })
  inputs.forEach((input, index) => {
    const payment = input.kind === 'foreign' ? foreignPayment : payments[input.kind]
    const prev = parent(payment.script, input.amount, 100 + index)
    tx.addInput({
      txid: prev.id,
      index: 0,
      nonWitnessUtxo: prev.raw,
      ...(input.kind === 'p2pkh' ? {} : { witnessUtxo: { script: payment.script, amount: input.amount } }),
      ...(input.kind === 'p2sh' ? { redeemScript: payments.p2sh.redeemScript } : {}),
      ...(input.kind === 'p2tr' ? { tapInternalKey: payments.p2tr.tapInternalKey } : {}),
      ...(input.sighashType === undefined ? {} : { sighashType: input.sighashType }),
      ...(input.kind === 'foreign' && options.signForeign ? { sighashType: 0x81 } : {}),
    })
  })
  const spent = inputs.reduce((sum, input) => sum + input.amount, 0n)
  tx.addOutput({ script: foreignPayment.script, amount: spent - 2_000n })
  if (options.signForeign) {
    inputs.forEach((input, index) => {
      // ANYONECANPAY: the signature commits to its own outpoint only, so it stays valid when the WalletConnect
      // transport moves our inputs to the announced account (new outpoints).
      if (input.kind === 'foreign') tx.signIdx(foreignKey, index, [0x81])
    })
  }
  return base64.encode(tx.toPSBT())
}

const signPsbtRequest = (psbtBase64: string, signInputs: unknown[], extra: Record<string, unknown> = {}) => ({
  chainId: BTC,
  method: 'signPsbt',
  params: { account: addr.p2wpkh, psbt: psbtBase64, signInputs, ...extra },
})
const verifyPsbt = { verify: { function: 'verifySignPsbt', options: { network: 'mainnet' } } }
// A PSBT whose only inputs of ours are the account's P2WPKH coins works with any keys: the WalletConnect
// transport rebuilds it over the announced account (the same outpoints, that account's script).
const overTheAccount = { keys: 'any' as const }
const multiParty = psbt(
  [
    { kind: 'p2wpkh', amount: 60_000n },
    { kind: 'foreign', amount: 40_000n },
  ],
  { signForeign: true },
)
total += write({
  namespace: 'bip122',
  method: 'signPsbt',
  description:
    'Sign exactly the listed inputs, each for its own address and an allowed sighash; leave every other input and output as it was.',
  source: `${btcSource}; sighash policy from BIP-174 (signer "must fail" on an unacceptable sighash) and research/bitcoin.md §5; PSBTs built with @scure/btc-signer`,
  license: 'BSD-2-Clause (BIPs), MIT (@scure/btc-signer)',
  wallet: btcWallet,
  cases: [
    {
      name: 'one P2WPKH input',
      ...overTheAccount,
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n }]), [
        { address: addr.p2wpkh, index: 0 },
      ]),
      expect: verifyPsbt,
    },
    {
      name: 'one P2TR key-path input (tweaked key, DEFAULT sighash)',
      request: signPsbtRequest(psbt([{ kind: 'p2tr', amount: 50_000n }]), [{ address: addr.p2tr, index: 0 }]),
      expect: verifyPsbt,
    },
    {
      name: 'one P2SH-P2WPKH input',
      request: signPsbtRequest(psbt([{ kind: 'p2sh', amount: 50_000n }]), [{ address: addr.p2sh, index: 0 }]),
      expect: verifyPsbt,
    },
    {
      name: 'one P2PKH input (full previous transaction)',
      request: signPsbtRequest(psbt([{ kind: 'p2pkh', amount: 50_000n }]), [
        { address: addr.p2pkh, index: 0 },
      ]),
      expect: verifyPsbt,
    },
    {
      name: 'three of our inputs of different types',
      request: signPsbtRequest(
        psbt([
          { kind: 'p2wpkh', amount: 10_000n },
          { kind: 'p2tr', amount: 20_000n },
          { kind: 'p2sh', amount: 30_000n },
        ]),
        [
          { address: addr.p2wpkh, index: 0 },
          { address: addr.p2tr, index: 1 },
          { address: addr.p2sh, index: 2 },
        ],
      ),
      expect: verifyPsbt,
    },
    {
      name: 'multi-party: the foreign input, already signed, stays untouched',
      ...overTheAccount,
      request: signPsbtRequest(multiParty, [{ address: addr.p2wpkh, index: 0 }]),
      expect: verifyPsbt,
    },
    {
      name: 'only the listed input of two of ours is signed',
      request: signPsbtRequest(
        psbt([
          { kind: 'p2wpkh', amount: 10_000n },
          { kind: 'p2tr', amount: 20_000n },
        ]),
        [{ address: addr.p2tr, index: 1 }],
      ),
      expect: verifyPsbt,
    },
    {
      name: 'SIGHASH_ALL|ANYONECANPAY when listed',
      ...overTheAccount,
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n, sighashType: 0x81 }]), [
        { address: addr.p2wpkh, index: 0, sighashTypes: [0x81] },
      ]),
      expect: verifyPsbt,
    },
    {
      name: 'an input sighash the request did not allow',
      ...overTheAccount,
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n, sighashType: 0x81 }]), [
        { address: addr.p2wpkh, index: 0 },
      ]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'SIGHASH_NONE is refused',
      ...overTheAccount,
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n, sighashType: 2 }]), [
        { address: addr.p2wpkh, index: 0, sighashTypes: [2] },
      ]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'our address named for a foreign input',
      ...overTheAccount,
      request: signPsbtRequest(multiParty, [{ address: addr.p2wpkh, index: 1 }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'an address of another wallet',
      ...overTheAccount,
      request: signPsbtRequest(multiParty, [{ address: foreignPayment.address!, index: 1 }]),
      expect: { error: { code: 4100 } },
    },
    {
      name: 'an index out of range',
      ...overTheAccount,
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n }]), [
        { address: addr.p2wpkh, index: 3 },
      ]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'not a PSBT',
      keys: 'any', // refused before any key is involved
      request: signPsbtRequest(base64.encode(new TextEncoder().encode('not a psbt')), [
        { address: addr.p2wpkh, index: 0 },
      ]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      request: signPsbtRequest(psbt([{ kind: 'p2wpkh', amount: 50_000n }]), [
        { address: addr.p2wpkh, index: 0 },
      ]),
      expect: { error: { code: 5000 } },
    },
    {
      // The spec: "txid … must be returned if broadcast". The PSBT spends a coin the run creates, so the
      // runner builds it (spendFunding) and checks the chain has the transaction.
      name: 'broadcast: the signed transaction is final, its txid returned and on the chain',
      chain: 'bitcoin-regtest',
      fund: [{ address: addr.regtest, amount: '100000' }],
      spendFunding: { recipient: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', fee: '1000' },
      request: {
        chainId: REGTEST,
        method: 'signPsbt',
        params: {
          account: addr.regtest,
          psbt: '$fundingPsbt',
          signInputs: [{ address: addr.regtest, index: 0 }],
          broadcast: true,
        },
      },
      expect: { verify: { function: 'verifySignPsbt', options: { network: 'regtest' } } },
    },
  ],
})

const fundAccount = [{ address: addr.regtest, amount: '100000000' }]
const transfer = (params: Record<string, unknown>, chainId = REGTEST) => ({
  chainId,
  method: 'sendTransfer',
  params: {
    account: addr.regtest,
    recipientAddress: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
    ...params,
  },
})
const verifyTransfer = (options: Record<string, unknown> = {}) => ({
  verify: { function: 'verifySendTransfer', options: { network: 'regtest', ...options } },
})
total += write({
  namespace: 'bip122',
  method: 'sendTransfer',
  description: 'Pay the recipient the amount (memo as one OP_RETURN when asked), broadcast, return the txid.',
  source: `${btcSource}; WalletConnect docs' example recipient bc1pmzfrwwndsqmk5yh69yjr5lfgfg4ev8c0tsc06e has a bad bech32m checksum (research/bitcoin.md §0.7)`,
  license: 'BSD-2-Clause (BIPs); WalletConnect docs example (Apache-2.0)',
  wallet: btcWallet,
  cases: [
    {
      name: 'pay 100 000 sat',
      chain: 'bitcoin-regtest',
      fund: fundAccount,
      request: transfer({ amount: '100000' }),
      expect: verifyTransfer(),
    },
    {
      name: 'with the docs memo (hex of "charley loves he")',
      chain: 'bitcoin-regtest',
      fund: fundAccount,
      request: transfer({ amount: '50000', memo: '636861726c6579206c6f766573206865' }),
      expect: verifyTransfer(),
    },
    {
      name: 'change to a given address of ours',
      keys: 'fixed', // the request names the fixed wallet's own data beyond its account
      chain: 'bitcoin-regtest',
      fund: fundAccount,
      request: transfer({ amount: '70000', changeAddress: addr.regtestChange }),
      expect: verifyTransfer(),
    },
    {
      name: 'the docs example recipient with a bad checksum',
      request: transfer({ amount: '1000', recipientAddress: 'bc1pmzfrwwndsqmk5yh69yjr5lfgfg4ev8c0tsc06e' }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a memo of 81 bytes',
      request: transfer({ amount: '1000', memo: 'ab'.repeat(81) }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a memo with 0x',
      request: transfer({ amount: '1000', memo: '0xabcd' }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a fractional amount',
      request: transfer({ amount: '1.5' }),
      expect: { error: { code: -32602 } },
    },
    { name: 'a zero amount', request: transfer({ amount: '0' }), expect: { error: { code: -32602 } } },
    {
      name: 'a mainnet recipient on regtest',
      request: transfer({ amount: '1000', recipientAddress: addr.foreign }),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a change address of another wallet',
      chain: 'bitcoin-regtest',
      request: transfer({ amount: '1000', changeAddress: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }),
      expect: { oneOf: [{ error: { code: 4100 } }, { error: { code: -32602 } }] },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      chain: 'bitcoin-regtest',
      fund: fundAccount,
      request: transfer({ amount: '100000' }),
      expect: { error: { code: 5000 } },
    },
  ],
})

// ---------------------------------------------------------------- ton
const tonWallet = {
  tonMnemonic: hospital,
  tonWallet: 'v5r1' as const,
  account: 0,
  now,
  approve: 'all' as const,
}
const tonAddress = '0:d22ce1556a6359cddcb82ee95c95c08110591145e67b5ac70108b030dcf839de'
const tonSource =
  'walletkit fixture mnemonic (ton-connect/kit packages/walletkit/src/contracts/w5/WalletV5R1.fixture.ts, Apache-2.0); TON Connect sign-data layout (ton-connect/ton-connect requests-responses.md); signatures recomputed in research/ton.md §1.3–1.4 for example.com at 1700000000'
const cellPayload = {
  type: 'cell',
  schema:
    'transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16) destination:MsgAddress response_destination:MsgAddress custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16) forward_payload:(Either Cell ^Cell) = InternalMsgBody;',
  cell: 'te6ccgEBAQEAVwAAqg+KfqVUbeTvKqB4h0AcnDgIAZucsOi6TLrfP6FcuPKEeTI6oB3fF/NBjyqtdov/KtutACCLqvfmyV9kH+Pyo5lcsrJzJDzjBJK6fd+ZnbFQe4+XggI=',
}
const signData = (params: unknown, origin: string | null = 'https://example.com') => ({
  chainId: 'ton:-239',
  method: 'ton_signData',
  params,
  ...(origin === null ? {} : { origin }),
})
const verifySignData = (domain = 'example.com') => ({ function: 'verifyTonSignData', options: { domain } })
total += write({
  namespace: 'ton',
  method: 'ton_signData',
  description:
    'text/binary/cell signed as TON Connect lays out the bytes, for the domain of the verified origin.',
  source: tonSource,
  license: 'Apache-2.0 (ton-connect), vectors are facts',
  wallet: tonWallet,
  cases: [
    {
      name: 'text "Hello, TON!"',
      request: signData([{ type: 'text', text: 'Hello, TON!' }]),
      expect: {
        resultIncludes: {
          signature:
            '7RtjBJ7vQ1a5ogehUy+zdRq0nHkmzPyGVJbI9KSfVDXs+AfHH48z3iFS5aRHJ4jY4jaY3hH5V5zxvKhnGjIMBg==',
          address: tonAddress,
          timestamp: now,
          domain: 'example.com',
          payload: { type: 'text', text: 'Hello, TON!' },
        },
        verify: verifySignData(),
      },
    },
    {
      name: 'binary (spec example bytes)',
      request: signData([{ type: 'binary', bytes: '1Z/SGh+3HFMKlVHSkN91DpcCzT4C5jzHT3sA/24C5A==' }]),
      expect: {
        resultIncludes: {
          signature:
            'TkmCHxGjcd9P0DC93d9wJOFxfu1HA/S916helRUxbhalhT03ZfLjZxOgrS9YiKd4uMOguFAEneHr3k5CIXx7Cg==',
        },
        verify: verifySignData(),
      },
    },
    {
      name: 'cell (spec jetton transfer, TEP-81 domain)',
      request: signData([cellPayload]),
      expect: {
        resultIncludes: {
          signature:
            'fktk+e7bT/x1V39X692pIu3Bg+EdkkHgzZBjWZ5FfOFj7J2YXJ8pg1iaISJk/SVbPTRE89ClO9b/ACn74obOBQ==',
        },
        verify: verifySignData(),
      },
    },
    {
      name: 'params as a bare object (what @tonconnect/sdk sends)',
      request: signData({ type: 'text', text: 'Hello, TON!', from: tonAddress }),
      expect: { verify: verifySignData() },
    },
    {
      name: 'an origin with a port keeps the port in the domain',
      request: signData(
        [{ type: 'text', text: 'Confirm new 2fa number:\n+1 234 567 8901' }],
        'http://localhost:5173',
      ),
      expect: { verify: verifySignData('localhost:5173') },
    },
    {
      name: 'testnet chain',
      request: { ...signData([{ type: 'binary', bytes: 'AAECAwQ=' }]), chainId: 'ton:-3' },
      expect: { verify: verifySignData() },
    },
    {
      name: 'v4R2 wallet',
      wallet: { tonWallet: 'v4r2' },
      request: signData([{ type: 'text', text: 'Hello, TON!' }]),
      expect: { verify: verifySignData() },
    },
    {
      name: 'no verified origin',
      request: signData([{ type: 'text', text: 'x' }], null),
      expect: { error: { code: -32602 } },
    },
    {
      name: '`from` another wallet',
      request: signData([
        {
          type: 'text',
          text: 'x',
          from: '0:e69f10cc84877abf539f83f879291e5ca169451ba7bce91a37a5ced3ab8080d3',
        },
      ]),
      expect: { error: { code: 4100 } },
    },
    {
      name: 'an unknown type',
      request: signData([{ type: 'image', data: 'AA==' }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a cell that is not a BoC',
      request: signData([{ ...cellPayload, cell: 'bm90IGEgYm9j' }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      request: signData([{ type: 'text', text: 'x' }]),
      expect: { error: { code: 5000 } },
    },
  ],
})

const dest = 'UQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA07-i'
// walletkit's v5R1 fixture StateInit (its hash is tonAddress), deployed by another wallet in the deploy case.
const walletkitStateInit =
  'te6cckECFgEAArEAAgE0ARUBFP8A9KQT9LzyyAsCAgEgAw4CAUgEBQLc0CDXScEgkVuPYyDXCx8gghBleHRuvSGCEHNpbnS9sJJfA+CCEGV4dG66jrSAINchAdB01yH6QDD6RPgo+kQwWL2RW+DtRNCBAUHXIfQFgwf0Dm+hMZEw4YBA1yFwf9s84DEg10mBAoC5kTDgcOIREAIBIAYNAgEgBwoCAW4ICQAZrc52omhAIOuQ64X/wAAZrx32omhAEOuQ64WPwAIBSAsMABezJftRNBx1yHXCx+AAEbJi+1E0NcKAIAAZvl8PaiaECAoOuQ+gLAEC8g8BHiDXCx+CEHNpZ2668uCKfxAB5o7w7aLt+yGDCNciAoMI1yMggCDXIdMf0x/TH+1E0NIA0x8g0x/T/9cKAAr5AUDM+RCaKJRfCtsx4fLAh98Cs1AHsPLQhFEluvLghVA2uvLghvgju/LQiCKS+ADeAaR/yMoAyx8BzxbJ7VQgkvgP3nDbPNgRA/btou37AvQEIW6SbCGOTAIh1zkwcJQhxwCzji0B1yggdh5DbCDXScAI8uCTINdKwALy4JMg1x0GxxLCAFIwsPLQiddM1zkwAaTobBKEB7vy4JPXSsAA8uCT7VXi0gABwACRW+Dr1ywIFCCRcJYB1ywIHBLiUhCx4w8g10oSExQAlgH6QAH6RPgo+kQwWLry4JHtRNCBAUHXGPQFBJ1/yMoAQASDB/RT8uCLjhQDgwf0W/LgjCLXCgAhbgGzsPLQkOLIUAPPFhL0AMntVAByMNcsCCSOLSHy4JLSAO1E0NIAURO68tCPVFAwkTGcAYEBQNch1woA8uCO4sjKAFjPFsntVJPywI3iABCTW9sx4ddM0ABRgAAAAD///4j7YihQtdjiinEXjLvxyFGBKszVDz2AA0U1VnkIykJg3qCxZgt/'
const bounceable = 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn'
const comment = beginCell().storeUint(0, 32).storeStringTail('hello').endCell().toBoc().toString('base64')
const fundWallet = [{ address: '$wallet', amount: '5000000000' }]
const send = (params: unknown) => ({ chainId: 'ton:-3', method: 'ton_sendMessage', params })
total += write({
  namespace: 'ton',
  method: 'ton_sendMessage',
  description:
    'One external message from the session wallet, signed, expiring no later than valid_until, carrying exactly the requested messages (bounce from the address tag, send mode 3), accepted by the chain.',
  source: `${tonSource}; TON Connect sendTransaction rules (ton-connect/ton-connect spec/rpc.md); addresses from the TON Connect spec example`,
  license: 'Apache-2.0 (ton-connect)',
  wallet: tonWallet,
  cases: [
    {
      name: 'one non-bounceable transfer (deploys the wallet)',
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send([{ valid_until: now + 300, messages: [{ address: dest, amount: '100000000' }] }]),
      expect: { verify: { function: 'verifyTonSendMessage' } },
    },
    {
      name: 'two messages, a comment payload and a bounceable address, amount as a number',
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send({
        valid_until: now + 120,
        messages: [
          { address: bounceable, amount: 20000000, payload: comment },
          { address: dest, amount: '30000000' },
        ],
      }),
      expect: { verify: { function: 'verifyTonSendMessage' } },
    },
    {
      name: 'a deploy: a message carrying a StateInit to its own address',
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send([
        {
          valid_until: now + 300,
          messages: [
            {
              address: Address.parseRaw(tonAddress).toString({ bounceable: false, testOnly: true }),
              amount: '50000000',
              stateInit: walletkitStateInit,
            },
          ],
        },
      ]),
      expect: { verify: { function: 'verifyTonSendMessage' } },
    },
    {
      name: 'valid_until in milliseconds',
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send([{ valid_until: (now + 300) * 1000, messages: [{ address: dest, amount: '1000' }] }]),
      expect: { verify: { function: 'verifyTonSendMessage' } },
    },
    {
      name: 'v4R2 wallet',
      wallet: { tonWallet: 'v4r2' },
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send([{ messages: [{ address: dest, amount: '100000000' }] }]),
      expect: { verify: { function: 'verifyTonSendMessage' } },
    },
    {
      name: 'valid_until in the past',
      request: send([{ valid_until: now - 1, messages: [{ address: dest, amount: '1' }] }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a raw destination address',
      request: send([
        {
          messages: [
            { address: '0:e69f10cc84877abf539f83f879291e5ca169451ba7bce91a37a5ced3ab8080d3', amount: '1' },
          ],
        },
      ]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'no messages',
      request: send([{ messages: [] }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'five messages on v4R2 (limit 4)',
      wallet: { tonWallet: 'v4r2' },
      request: send([{ messages: Array.from({ length: 5 }, () => ({ address: dest, amount: '1' })) }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: 'a negative amount',
      request: send([{ messages: [{ address: dest, amount: '-5' }] }]),
      expect: { error: { code: -32602 } },
    },
    {
      name: '`from` another wallet',
      request: send([{ from: bounceable, messages: [{ address: dest, amount: '1' }] }]),
      expect: { error: { code: 4100 } },
    },
    {
      name: 'the user rejects',
      wallet: { approve: 'none' },
      chain: 'ton-sandbox',
      fund: fundWallet,
      request: send([{ valid_until: now + 300, messages: [{ address: dest, amount: '1000' }] }]),
      expect: { error: { code: 5000 } },
    },
  ],
})

process.stdout.write(`${total} cases written to ${out}\n`)
