import { describe, expect, it } from 'vitest'
import { bip122, hdKeys } from '../../src/bip122/index.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { solana, solanaKeys } from '../../src/solana/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'

/**
 * Params errors come before any provider or chain access (issue 21): every method of every namespace, on
 * chains configured without a provider, answers malformed params with -32602 and the field's path, never
 * with -32603 "no chain provider" (which would hide from the dapp what it sent wrong). (solana's sending
 * method is not offered at all on a chain without a provider: it answers 5101 before reading params.)
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const btc = 'bip122:000000000019d6689c085ae165831e93'
const btcAccount = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
const evmAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
const sol = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

const wallet = createWalletRpc({
  namespaces: [
    bip122({ keys: hdKeys({ mnemonic }) }),
    eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
    ton({ keys: await tonKeys.fromSecretKey(new Uint8Array(32).fill(2)) }),
    solana({ keys: solanaKeys.fromMnemonic(mnemonic) }),
  ],
  approve: () => true,
})

const cases: Array<[string, string, string, unknown]> = [
  [
    'bip122',
    btc,
    'sendTransfer',
    { account: btcAccount, recipientAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdx', amount: '1000' },
  ],
  [
    'bip122',
    btc,
    'sendTransfer',
    { account: btcAccount, recipientAddress: btcAccount, amount: '1000', memo: 'zz' },
  ],
  [
    'bip122',
    btc,
    'signPsbt',
    { account: btcAccount, psbt: 'cHNidP8=', signInputs: [{ address: btcAccount, index: 0 }] },
  ],
  ['bip122', btc, 'signMessage', { account: btcAccount, message: 'hi', protocol: 'nope' }],
  ['bip122', btc, 'getAccountAddresses', { account: 42 }],
  ['eip155', 'eip155:1', 'eth_sendTransaction', [{ from: evmAccount, to: '0x1234', value: '0x1' }]],
  ['eip155', 'eip155:1', 'eth_signTransaction', [{ from: evmAccount, to: evmAccount, value: 'lots' }]],
  ['eip155', 'eip155:1', 'eth_sendRawTransaction', ['0xdeadbeef']],
  ['eip155', 'eip155:1', 'personal_sign', ['0x68656c6c6f', '0x1234']],
  ['eip155', 'eip155:1', 'eth_signTypedData_v4', [evmAccount, '{not json']],
  ['eip155', 'eip155:1', 'eth_signTypedData_v3', [evmAccount, '{not json']],
  ['eip155', 'eip155:1', 'eth_signTypedData', [evmAccount, { types: 1 }]],
  [
    'ton',
    'ton:-239',
    'ton_sendMessage',
    [{ valid_until: 1, messages: [{ address: 'not an address', amount: '1' }] }],
  ],
  ['ton', 'ton:-239', 'ton_signData', [{ type: 'nope' }]],
  ['solana', sol, 'solana_signMessage', { message: '!!!', pubkey: 'x' }],
  ['solana', sol, 'solana_signTransaction', { transaction: '!!!' }],
  ['solana', sol, 'solana_signAllTransactions', { transactions: ['!!!'] }],
]

describe('params errors before any provider is needed', () => {
  it.each(cases)(
    '%s %s %s: -32602 with a path, not "no chain provider"',
    async (_namespace, chainId, method, params) => {
      const answer = (await wallet.handle({
        chainId,
        origin: 'https://dapp.example',
        request: { id: 1, method, params },
      })) as { error?: { code: number; data?: { path?: string; reason?: string } } }
      expect(answer.error?.code, JSON.stringify(answer)).toBe(-32602)
      expect(JSON.stringify(answer.error)).not.toMatch(/provider/)
    },
  )
})
