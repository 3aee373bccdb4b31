import { describe, expect, it } from 'vitest'
import { compileSolidity } from '../../wallet-rpc/test/eip155/simulation/compileFixture.js'
import { liveTokenAbi, liveTokenBytecode } from '../src/live/liveTokenArtifact.js'

describe('LiveToken provenance', () => {
  it('the committed ABI and bytecode are what solc 0.8.37 (npm solc, wasm, optimizer off) makes of LiveToken.sol', () => {
    const compiled = compileSolidity('LiveToken', new URL('../src/live/LiveToken.sol', import.meta.url))
    expect(compiled.solcVersion).toBe('0.8.37+commit.f401782d.Emscripten.clang')
    expect(compiled.bytecode).toBe(liveTokenBytecode)
    expect((compiled.abi as AbiItem[]).map(signature)).toEqual(liveTokenAbi.map(signature))
  })
})

type AbiParameter = { type: string; name?: string; indexed?: boolean }
type AbiItem = {
  type: string
  name?: string
  inputs?: readonly AbiParameter[]
  outputs?: readonly AbiParameter[]
  stateMutability?: string
}

/** Everything an ABI entry says that callers depend on: kind, name, parameter types, names, indexing, mutability. */
const signature = (item: AbiItem): string => {
  const parameters = (list: readonly AbiParameter[] = []) =>
    list.map((parameter) => `${parameter.type}${parameter.indexed ? ' indexed' : ''} ${parameter.name ?? ''}`)
  return `${item.type} ${item.name ?? ''}(${parameters(item.inputs)}) ${item.stateMutability ?? ''} (${parameters(item.outputs)})`
}
