import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { committedFixture, compileFixture, fixtureSource } from './compileFixture.js'

describe('GreedySwap fixture provenance', () => {
  it('the committed bytecode and ABI are what solc 0.8.37 (npm solc, wasm) makes of GreedySwap.sol', () => {
    const committed = committedFixture()
    const compiled = compileFixture()
    expect(compiled.solcVersion).toBe('0.8.37+commit.f401782d.Emscripten.clang')
    expect(committed.solcVersion).toBe(compiled.solcVersion)
    expect(committed.bytecode).toBe(compiled.bytecode)
    expect(committed.abi).toEqual(compiled.abi)
    expect(readFileSync(fixtureSource, 'utf8')).toContain('pragma solidity 0.8.37;')
  })
})
