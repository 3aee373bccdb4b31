import { describe, expect, it } from 'vitest'
import { BIP122_REGTEST } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { manyInputPsbt } from '../bip122/manyInputPsbt.js'
import { typedDataBatch } from '../eip155/typedDataBatch.js'
import { countTurns } from './countTurns.js'

/**
 * signPsbt (decoding, parents, analysis, signing, encoding) and eth_signTypedData_v4 (struct hashing) give
 * the event loop turns on large requests (core/yielding.ts) without changing their answers: requests run
 * side by side answer exactly what they answer one after the other (every signature in its place), and other
 * tasks run meanwhile. Nothing here is timed.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const evmAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'

function wallet() {
  const namespace = bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_REGTEST]: {} } })
  const rpc = createWalletRpc({
    namespaces: [namespace, eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] })],
    approve: () => true,
  })
  let id = 0
  const call = async (chainId: string, method: string, params: unknown) => {
    const response = await rpc.handle({ chainId, request: { jsonrpc: '2.0', id: ++id, method, params } })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
    return response.result
  }
  return { namespace, rpc, call }
}

/** `count` P2WPKH inputs of the wallet's addresses (cycling over 5), each carrying its own parent. */
async function signPsbtParams(namespace: ReturnType<typeof bip122>, count: number, seed: number) {
  const { account } = await namespace.wallet.chain(BIP122_REGTEST)
  const owners = await Promise.all(Array.from({ length: 5 }, (_, i) => account.address(84, 0, i)))
  return manyInputPsbt({ account: account.id, owners, count, seed, parents: true, witnessUtxo: false })
}

const typedData = (entries: number, salt: string) =>
  typedDataBatch({ entries, amounts: 8, salt, owner: evmAccount })

describe('large requests side by side answer what they answer alone', () => {
  it('two signPsbt (400 and 300 inputs with parents) and two typed-data signatures, interleaved', async () => {
    const alone = wallet()
    const requests = [
      [BIP122_REGTEST, 'signPsbt', await signPsbtParams(alone.namespace, 400, 1)],
      [BIP122_REGTEST, 'signPsbt', await signPsbtParams(alone.namespace, 300, 2)],
      ['eip155:1', 'eth_signTypedData_v4', [evmAccount, typedData(400, 'a')]],
      ['eip155:1', 'eth_signTypedData_v4', [evmAccount, typedData(300, 'b')]],
    ] as const
    const expected: unknown[] = []
    for (const [chainId, method, params] of requests) expected.push(await alone.call(chainId, method, params))

    const together = wallet()
    const stopCounting = countTurns()
    const answers = await Promise.all(
      requests.map(([chainId, method, params]) => together.call(chainId, method, params)),
    )
    const turns = stopCounting()
    expect(answers).toEqual(expected)
    // The two PSBTs are different requests with different answers: nothing was mixed between them.
    expect(answers[0]).not.toEqual(answers[1])
    expect(turns).toBeGreaterThan(4)
    await alone.rpc.close()
    await together.rpc.close()
  })
})
