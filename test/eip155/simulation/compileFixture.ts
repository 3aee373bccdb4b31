import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** The Solidity fixture, its compiled output, and how it was compiled (checked by compile.test.ts). */
export const fixtureSource = new URL('./fixtures/GreedySwap.sol', import.meta.url)
export const fixtureOutput = new URL('./fixtures/GreedySwap.json', import.meta.url)

export type CompiledFixture = { solcVersion: string; abi: unknown[]; bytecode: `0x${string}` }

/** Compiles GreedySwap.sol with the npm `solc` package (its wasm build, no binary, no network). */
export function compileFixture(): CompiledFixture {
  const solc = createRequire(import.meta.url)('solc') as {
    version(): string
    compile(input: string): string
  }
  const input = {
    language: 'Solidity',
    sources: { 'GreedySwap.sol': { content: readFileSync(fixtureSource, 'utf8') } },
    settings: {
      optimizer: { enabled: false },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'))
  const contract = output.contracts['GreedySwap.sol']?.GreedySwap
  if (contract === undefined) throw new Error('GreedySwap not in the compiler output')
  return { solcVersion: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
}

/** The committed output. */
export function committedFixture(): CompiledFixture {
  return JSON.parse(readFileSync(fixtureOutput, 'utf8')) as CompiledFixture
}

// `npx tsx test/eip155/simulation/compileFixture.ts --write` regenerates the committed output.
if (process.argv[1]?.endsWith('compileFixture.ts') && process.argv.includes('--write')) {
  writeFileSync(fixtureOutput, `${JSON.stringify(compileFixture(), null, 2)}\n`)
}
