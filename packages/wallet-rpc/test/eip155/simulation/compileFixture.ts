import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** The Solidity test contracts in fixtures/, each compiled to fixtures/<name>.json (checked by compile.test.ts). */
export const fixtureNames = ['GreedySwap', 'HostileToken', 'WrappedEther'] as const
export type FixtureName = (typeof fixtureNames)[number]

export const fixtureSource = (name: FixtureName) => new URL(`./fixtures/${name}.sol`, import.meta.url)
const fixtureOutput = (name: FixtureName) => new URL(`./fixtures/${name}.json`, import.meta.url)

export type CompiledFixture = { solcVersion: string; abi: unknown[]; bytecode: `0x${string}` }

/** Compiles fixtures/<name>.sol with the npm `solc` package (its wasm build, no binary, no network). */
export function compileFixture(name: FixtureName): CompiledFixture {
  return compileSolidity(name, fixtureSource(name))
}

/** Compiles contract `name` of the Solidity file at `source`, optimizer off (how every committed output was made). */
export function compileSolidity(name: string, source: URL): CompiledFixture {
  const solc = createRequire(import.meta.url)('solc') as {
    version(): string
    compile(input: string): string
  }
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: readFileSync(source, 'utf8') } },
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
  const contract = output.contracts[`${name}.sol`]?.[name]
  if (contract === undefined) throw new Error(`${name} not in the compiler output`)
  return { solcVersion: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
}

/** The committed output. */
export function committedFixture(name: FixtureName): CompiledFixture {
  return JSON.parse(readFileSync(fixtureOutput(name), 'utf8')) as CompiledFixture
}

// `npx tsx test/eip155/simulation/compileFixture.ts --write` regenerates the committed outputs.
if (process.argv[1]?.endsWith('compileFixture.ts') && process.argv.includes('--write')) {
  for (const name of fixtureNames)
    writeFileSync(fixtureOutput(name), `${JSON.stringify(compileFixture(name), null, 2)}\n`)
}
