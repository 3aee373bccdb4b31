import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { committedFixture, compileFixture, fixtureNames, fixtureSource } from './compileFixture.js'

describe('Solidity fixture provenance', () => {
  for (const name of fixtureNames) {
    it(`${name}: the committed bytecode and ABI are what solc 0.8.37 (npm solc, wasm) makes of ${name}.sol`, () => {
      const committed = committedFixture(name)
      const compiled = compileFixture(name)
      expect(compiled.solcVersion).toBe('0.8.37+commit.f401782d.Emscripten.clang')
      expect(committed.solcVersion).toBe(compiled.solcVersion)
      expect(committed.bytecode).toBe(compiled.bytecode)
      expect(committed.abi).toEqual(compiled.abi)
      expect(readFileSync(fixtureSource(name), 'utf8')).toContain('pragma solidity 0.8.37;')
    })
  }
})
