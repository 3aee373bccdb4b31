import { base64 } from '@scure/base'
import * as bitcoin from 'bitcoinjs-lib'
import { BIP122_REGTEST, bip122, ecc, hdKeys } from '../src/bip122/index.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../src/eip155/index.js'
import { typedDataLimits } from '../src/eip155/typedData.js'
import { measureCalls, median } from './measure.js'

/**
 * The worst case each limit admits (issue 24): the largest request the documented limits let through, timed
 * through `handle()` (wall ms per request, median of rounds), so a wallet knows the most one request can
 * cost it. Refusals of anything larger are immediate (test/hostile/*). `solana_signAllTransactions` at its
 * policy maximum is in bench/solana.bench.ts.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const evmAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'

/** `inputs` P2TR key-path coins of our first BIP-86 regtest address (witnessUtxo suffices: BIP-341). */
function taprootPsbt(address: string, inputs: number): string {
  bitcoin.initEccLib(ecc) // this script's own P2TR address decoding
  const network = bitcoin.networks.regtest
  const script = bitcoin.address.toOutputScript(address, network)
  const psbt = new bitcoin.Psbt({ network })
  for (let i = 0; i < inputs; i++) {
    const hash = new Uint8Array(32)
    hash[0] = i & 255
    hash[1] = i >> 8
    psbt.addInput({ hash, index: 0, witnessUtxo: { script, value: 10_000n } })
  }
  psbt.addOutput({ script, value: BigInt(inputs) * 9_000n })
  return base64.encode(psbt.toBuffer())
}

export async function run(): Promise<void> {
  const wallet = createWalletRpc({
    namespaces: [
      bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_REGTEST]: {} } }),
      eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] }),
    ],
    approve: () => true,
  })
  const properties = await wallet.sessionProperties([BIP122_REGTEST])
  const entries = JSON.parse(properties.bip122_getAccountAddresses!) as Array<{
    address: string
    path: string
  }>
  const taproot = entries.find((entry) => entry.path.startsWith("m/86'"))!.address
  const payment = entries.find((entry) => entry.path.startsWith("m/84'"))!.address
  const bigText = 'a'.repeat(1024 * 1024)
  const psbtInputs = 1000
  const psbt = taprootPsbt(taproot, psbtInputs)
  let id = 0
  const cases: Array<[string, string, string, unknown, number]> = [
    [
      `eth_signTypedData_v4, a ${typedDataLimits.maxArrayLength}-entry array`,
      'eip155:1',
      'eth_signTypedData_v4',
      [
        evmAccount,
        JSON.stringify({
          types: {
            EIP712Domain: [{ name: 'name', type: 'string' }],
            Batch: [{ name: 'amounts', type: 'uint256[]' }],
          },
          primaryType: 'Batch',
          domain: { name: 'limits' },
          message: { amounts: Array.from({ length: typedDataLimits.maxArrayLength }, (_, i) => String(i)) },
        }),
      ],
      20,
    ],
    [
      'personal_sign, a 1 MiB message',
      'eip155:1',
      'personal_sign',
      [`0x${Buffer.from(bigText).toString('hex')}`, evmAccount],
      10,
    ],
    [
      'signMessage bip322, a 1 MiB message',
      BIP122_REGTEST,
      'signMessage',
      { account: payment, message: bigText, protocol: 'bip322' },
      10,
    ],
    [
      `signPsbt, ${psbtInputs} P2TR inputs`,
      BIP122_REGTEST,
      'signPsbt',
      {
        account: taproot,
        psbt,
        signInputs: Array.from({ length: psbtInputs }, (_, index) => ({ address: taproot, index })),
      },
      3,
    ],
  ]
  console.log('worst case the limits admit: wall ms per request through handle(), median of 5 rounds')
  for (const [name, chainId, method, params, calls] of cases) {
    const first = await wallet.handle({ chainId, request: { id: ++id, method, params } })
    if (!('result' in first)) throw new Error(`${name}: ${JSON.stringify(first).slice(0, 300)}`)
    const rounds = []
    for (let round = 0; round < 5; round++) {
      rounds.push(
        (await measureCalls(calls, () => wallet.handle({ chainId, request: { id: ++id, method, params } })))
          .wall,
      )
    }
    console.log(`  ${name.padEnd(44)} ${(median(rounds) / 1000).toFixed(1).padStart(8)} ms`)
  }
}
