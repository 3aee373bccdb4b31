import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeModules, root } from './bundle.js'
import { buildMetroBundle, createMetroApp } from './metroApp.js'
import {
  agreementTable,
  type Case,
  expectSameAsNode,
  nodeOutcome,
  type Outcome,
  platformCases,
  portableBackends,
} from './vectorCases.js'

/**
 * React Native: the library in an app bundled by Metro itself, run on a real Hermes VM (the `hermes` binary
 * of the npm package hermes-engine-cli, 0.12: no WebAssembly, no TextEncoder, no crypto, no classes, no
 * `import.meta`, no top-level await). The app (metroApp.ts) depends on wallet-rpc as an installed package,
 * uses `@react-native/metro-config`'s defaults, and its first lines are the README's React Native setup
 * block, read from README.md; stand-ins only for the packages that need native code. Every conformance vector
 * that needs no chain, and every one that needs a chain (the sending methods') over a recorded chain
 * (fixtures/chainStubs.js), is answered in Hermes and compared with Node's, broadcasts included; then a
 * wallet's own "native" secp256k1 and Ed25519 modules are plugged in with `useCrypto` and must carry every
 * signature with the same answers.
 */
const hermes = process.env.HERMES_PATH ?? join(nodeModules, 'hermes-engine-cli/linux64-bin/hermes')
const available = process.platform === 'linux' && existsSync(hermes)
if (!available && process.env.REQUIRE_HERMES !== '1') {
  console.warn('hermes (npm hermes-engine-cli, linux) not found: the React Native suite is SKIPPED')
}

describe.runIf(!available && process.env.REQUIRE_HERMES === '1')('hermes required', () => {
  it('the hermes binary is present', () => {
    expect.fail('REQUIRE_HERMES=1 but no hermes binary (npm ci installs hermes-engine-cli)')
  })
})

/** Runs the bundle in Hermes with `call` appended; the call prints one JSON line. */
async function runInHermes(bundle: string, call: string): Promise<unknown> {
  const script = `${bundle}.run.js`
  writeFileSync(script, `${readFileSync(bundle, 'utf8')}\n${call}\n`)
  const { stdout } = await promisify(execFile)(hermes, ['-w', script], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  })
  const line = stdout.trim().split('\n').at(-1) ?? ''
  if (!line.startsWith('{')) throw new Error(`hermes printed: ${stdout.slice(-2000)}`)
  return JSON.parse(line)
}

const printResult = (expression: string) =>
  `(${expression}).then(function (r) { print(JSON.stringify(r)) }, function (e) { print('ERROR ' + e + ' ' + e.stack) })`

describe.skipIf(!available)('React Native (Hermes VM)', () => {
  const cases: Case[] = platformCases()
  const work = mkdtempSync(join(tmpdir(), 'wallet-rpc-hermes-'))
  let bundle: string
  let node: Outcome
  /** Context → its answers, for the summary printed at the end. */
  const outcomes = new Map<string, Outcome>()

  beforeAll(async () => {
    chmodSync(hermes, 0o755) // npm does not always keep the binary's mode
    node = await nodeOutcome(cases)
    const app = createMetroApp(work, join(root, 'test/platforms/fixtures/react-native/appEntry.js'))
    bundle = await buildMetroBundle(app, join(work, 'metro.js'), { minify: false })
  }, 900_000)

  afterAll(() => {
    if (outcomes.size > 0)
      console.log(`Hermes, per method and context:\n${agreementTable(cases, node, outcomes)}`)
    rmSync(work, { recursive: true, force: true })
  })

  it("builds with only the README's JS packages: no @ton/crypto, hence no native module wallet-rpc never calls", () => {
    // The app has no expo-crypto nor react-native-fast-pbkdf2 (Metro would have failed the build if the bundle
    // required them); /ton and /verify load the package's own @ton/core build, in which @ton/crypto's SHA-256
    // and Ed25519 come from @noble/hashes and tweetnacl (src/ton/coreCrypto.ts).
    const code = readFileSync(bundle, 'utf8')
    expect(code).toContain('for React Native, built by scripts/ton-core-native.mjs') // dist/vendor/ton-core.js
    // jssha is @ton/crypto's SHA; the two names are what @ton/crypto-primitives' React Native entry requires.
    for (const absent of ['Chosen SHA variant is not supported', 'expo-crypto', 'react-native-fast-pbkdf2'])
      expect(code, absent).not.toContain(absent)
  })

  it('answers every vector, chainless or on a recorded chain, as Node does, with the portable backends', async () => {
    const outcome = (await runInHermes(bundle, printResult(`runCases(${JSON.stringify(cases)})`))) as Outcome
    outcomes.set('metro + hermes, portable backends', outcome)
    expectSameAsNode(cases, outcome, node)
    expect(outcome.backends).toEqual(portableBackends)
  }, 600_000)

  it("a wallet's native secp256k1 and Ed25519 modules, plugged with useCrypto, carry every signature", async () => {
    const call = printResult(
      `(function () { var calls = installNativeCrypto(); return runCases(${JSON.stringify(cases)}).then(function (r) { r.calls = calls(); return r }) })()`,
    )
    const outcome = (await runInHermes(bundle, call)) as Outcome & {
      calls: { secp256k1: number; ed25519: number }
    }
    outcomes.set('metro + hermes, useCrypto native modules', outcome)
    expectSameAsNode(cases, outcome, node)
    expect(outcome.backends).toEqual({
      secp256k1: 'native-secp256k1',
      ed25519: 'native-ed25519',
      sha256: '@noble/hashes',
    })
    const signatures = node.results.filter(({ answer }) => 'result' in (answer as object)).length
    expect(outcome.calls.secp256k1).toBeGreaterThan(signatures)
    expect(outcome.calls.ed25519).toBeGreaterThan(0)
  }, 600_000)
})
