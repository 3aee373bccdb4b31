import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { root } from './bundle.js'

/**
 * A fast backend that fails to load falls back silently to the portable one and says so. Node with
 * `--jitless` (how locked-down hosts run it) has no `WebAssembly`, so tiny-secp256k1 throws while loading:
 * the wallet must still answer, with @bitcoinerlab/secp256k1 named by `backends()` and the same bytes.
 */
const script = `
  import { createWalletRpc } from 'wallet-rpc'
  import { bip122, hdKeys } from 'wallet-rpc/bip122'
  import { eip155, mnemonicKeys } from 'wallet-rpc/eip155'
  const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
  const wallet = createWalletRpc({
    namespaces: [bip122({ keys: hdKeys({ mnemonic }) }), eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] })],
    approve: () => true,
  })
  const answers = []
  for (const protocol of ['ecdsa', 'bip322'])
    answers.push(await wallet.handle({ chainId: 'bip122:000000000019d6689c085ae165831e93', request: { id: 1,
      method: 'signMessage', params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'no wasm', protocol } } }))
  answers.push(await wallet.handle({ chainId: 'eip155:1', request: { id: 2, method: 'personal_sign',
    params: ['0x68656c6c6f', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'] } }))
  process.stdout.write(JSON.stringify({ webAssembly: typeof WebAssembly, backends: wallet.backends(), answers }))
`

async function run(nodeFlags: string[]) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeFlags, '--input-type=module', '-e', script],
    { cwd: root, env: { ...process.env, WALLET_RPC_SECP256K1: '' } },
  )
  return JSON.parse(stdout) as { webAssembly: string; backends: Record<string, string>; answers: unknown[] }
}

describe('Node without WebAssembly (--jitless)', () => {
  it('tiny-secp256k1 fails to load: the portable backend signs the same bytes and backends() names it', async () => {
    const [withoutWasm, withWasm] = [await run(['--jitless']), await run([])]
    expect(withoutWasm.webAssembly).toBe('undefined')
    expect(withoutWasm.backends.secp256k1).toBe('@bitcoinerlab/secp256k1')
    expect(withWasm.backends.secp256k1).toBe('tiny-secp256k1')
    expect(withoutWasm.answers).toEqual(withWasm.answers)
    expect(withoutWasm.answers.every((answer) => JSON.stringify(answer).includes('"result"'))).toBe(true)
  })
})
