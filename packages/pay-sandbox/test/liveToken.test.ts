import { describe, expect, it } from 'vitest'
import { compileSolidity } from '../../wallet-rpc/test/eip155/simulation/compileFixture.js'
import { liveTokenAbi, liveTokenBytecode } from '../src/live/liveTokenArtifact.js'

describe('LiveToken provenance', () => {
  it('the committed ABI and bytecode are what solc 0.8.37 (npm solc, wasm, optimizer off) makes of LiveToken.sol', () => {
    const compiled = compileSolidity('LiveToken', new URL('../src/live/LiveToken.sol', import.meta.url))
    expect(compiled.solcVersion).toBe('0.8.37+commit.f401782d.Emscripten.clang')
    expect(compiled.bytecode).toBe(liveTokenBytecode)
    expect(compiled.abi).toEqual(liveTokenAbi)
  })
})
