import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { erc20Abi } from '../src/eip155/erc20Abi.js'
import { modulesLoadedByImport, runInPackage } from './setup/modulesLoaded.js'

/**
 * The published shape: every subpath resolves by the package's own name from the built `dist/`, ships
 * types, and importing one namespace does not load another namespace's chain libraries.
 */
const root = fileURLToPath(new URL('../', import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
  exports: Record<string, { types: string; default: string } | string>
  sideEffects: boolean
  type: string
  bin: Record<string, string>
}

const chainLibraries = {
  bip122: ['/node_modules/bitcoinjs-lib/', '/node_modules/bip32/', '/node_modules/bip322-js/'],
  // tweetnacl is not listed: it is the shared Ed25519 fallback (src/crypto/ed25519.ts) ton and solana both use.
  ton: ['/node_modules/@ton/core/', '/node_modules/@ton/crypto/'],
  eip155: ['/node_modules/viem/'],
  // src/solana is Uint8Array-native: none of the Solana SDKs (devDependencies for tests only).
  solana: ['/node_modules/@solana/', '/node_modules/litesvm/'],
}

beforeAll(() => {
  if (!existsSync(`${root}/dist/index.js`))
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
})

describe('package', () => {
  it('is ESM, side-effect free, with a bin', () => {
    expect(pkg.type).toBe('module')
    expect(pkg.sideEffects).toBe(false)
    expect(pkg.bin['wallet-rpc']).toBe('./dist/cli/main.js')
    expect(existsSync(`${root}/${pkg.bin['wallet-rpc']}`)).toBe(true)
  })

  it.each([
    '.',
    './bip122',
    './ton',
    './eip155',
    './solana',
    './verify',
    './walletkit',
    './pay',
    './explorer',
    './conformance',
    './pay/sandbox',
    './pay/postgres',
  ])('subpath %s resolves by name and ships types', async (subpath) => {
    const entry = pkg.exports[subpath]
    if (typeof entry !== 'object') throw new Error(`exports["${subpath}"] must have types and default`)
    expect(existsSync(`${root}/${entry.types}`)).toBe(true)
    expect(existsSync(`${root}/${entry.default}`)).toBe(true)
    const specifier = subpath === '.' ? 'wallet-rpc' : `wallet-rpc/${subpath.slice(2)}`
    expect(modulesLoadedByImport(specifier).length).toBeGreaterThan(0)
  })

  it('exports createWalletRpc and the error classes from the root', async () => {
    const api = await import(`${root}/dist/index.js`)
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ChainNotConfiguredError",
        "InternalError",
        "InvalidParamsError",
        "InvalidRequestError",
        "JournalUnavailableError",
        "MethodNotFoundError",
        "MethodNotSupportedError",
        "ParseError",
        "PolicyRefusedError",
        "ProviderError",
        "RequestExpiredError",
        "RequestKeyReusedError",
        "UnauthorizedError",
        "UserRejectedError",
        "WalletRpcError",
        "activeBackends",
        "createWalletRpc",
        "defineMethod",
        "fixedClock",
        "memoryStorage",
        "serializeError",
        "systemClock",
        "useCrypto",
      ]
    `)
  })

  it.each(Object.keys(chainLibraries) as Array<keyof typeof chainLibraries>)(
    'importing wallet-rpc/%s loads no other namespace’s chain libraries',
    (namespace) => {
      const loaded = modulesLoadedByImport(`wallet-rpc/${namespace}`)
      for (const [other, libraries] of Object.entries(chainLibraries)) {
        if (other === namespace) continue
        for (const library of libraries) expect(loaded.filter((url) => url.includes(library))).toEqual([])
      }
    },
  )

  it('wallet-rpc/pay and wallet-rpc/pay/postgres load no database driver (pg only for a connectionString)', () => {
    for (const specifier of ['wallet-rpc/pay', 'wallet-rpc/pay/postgres']) {
      const loaded = modulesLoadedByImport(specifier)
      expect(loaded.length, specifier).toBeGreaterThan(0)
      expect(
        loaded.filter(
          (url) => url.includes('/node_modules/pg') || url.includes('/node_modules/@electric-sql/'),
        ),
        specifier,
      ).toEqual([])
    }
  })

  it('the root entry loads no chain library at all', () => {
    const loaded = modulesLoadedByImport('wallet-rpc')
    for (const library of Object.values(chainLibraries).flat()) {
      expect(loaded.filter((url) => url.includes(library))).toEqual([])
    }
  })
})

/**
 * Node's `dist/eip155/viemUtils.js` is one esbuild bundle of the viem helpers the namespace uses (cold start:
 * the `viem/utils` barrel loads ~270 files); it must be viem's code, answering exactly as `viem/utils` does.
 */
describe('eip155 prebundled viem helpers (Node)', () => {
  it('importing wallet-rpc/eip155 loads viem/accounts but not the viem/utils barrel', () => {
    const loaded = modulesLoadedByImport('wallet-rpc/eip155')
    expect(loaded.some((url) => url.includes('/node_modules/viem/_esm/accounts/index.js'))).toBe(true)
    expect(loaded.filter((url) => url.includes('/node_modules/viem/_esm/utils/index.js'))).toEqual([])
    expect(loaded.filter((url) => url.includes('/node_modules/ox/'))).toEqual([])
  })

  it('answers exactly as viem/utils does', async () => {
    const bundled = await import(`${root}/dist/eip155/viemUtils.js`)
    const viem = await import('viem/utils')
    const address = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
    // EIP-712's own example (sourced in the vector file), and the same with an array member added.
    const { typedData } = JSON.parse(
      readFileSync(`${root}/test-vectors/eip155/eip712-mail.json`, 'utf8'),
    ) as { typedData: Parameters<typeof viem.hashTypedData>[0] & { types: Record<string, unknown[]> } }
    const withArray = {
      ...typedData,
      types: { ...typedData.types, Mail: [...typedData.types.Mail!, { name: 'amounts', type: 'uint256[]' }] },
      message: { ...typedData.message, amounts: [1n, 2n] },
    } as Parameters<typeof viem.hashTypedData>[0]
    const transaction = {
      chainId: 1,
      type: 'eip1559',
      nonce: 7,
      to: address,
      value: 10n ** 18n,
      gas: 21000n,
      maxFeePerGas: 3n * 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
      data: '0xa9059cbb',
      accessList: [{ address, storageKeys: [`0x${'11'.repeat(32)}`] }],
    } as const
    const serialized = viem.serializeTransaction(transaction)
    const legacyTransaction = {
      chainId: 5,
      nonce: 1,
      to: address,
      value: 1n,
      gas: 21000n,
      gasPrice: 1n,
    } as const
    const legacy = viem.serializeTransaction(legacyTransaction)
    const call = `0xa9059cbb${address.slice(2).toLowerCase().padStart(64, '0')}${'0'.repeat(63)}5`
    const cases: Array<[string, (utils: typeof viem) => unknown]> = [
      ['hashTypedData', (utils) => utils.hashTypedData(typedData)],
      ['hashTypedData, array member', (utils) => utils.hashTypedData(withArray)],
      ['serializeTransaction', (utils) => utils.serializeTransaction(transaction)],
      ['serializeTransaction legacy', (utils) => utils.serializeTransaction(legacyTransaction)],
      ['parseTransaction', (utils) => utils.parseTransaction(serialized)],
      ['parseTransaction legacy', (utils) => utils.parseTransaction(legacy)],
      ['hashMessage', (utils) => utils.hashMessage({ raw: '0x68656c6c6f' })],
      ['getAddress', (utils) => utils.getAddress(address.toLowerCase())],
      ['isAddress', (utils) => [utils.isAddress(address), utils.isAddress(address.replace('E', 'e'))]],
      [
        'decodeFunctionData',
        (utils) => utils.decodeFunctionData({ abi: erc20Abi, data: call as `0x${string}` }),
      ],
      [
        'formatUnits',
        (utils) => [utils.formatUnits(123456789n, 6), utils.formatEther(10n ** 17n), utils.formatGwei(1n)],
      ],
      [
        'hex',
        (utils) => [
          utils.numberToHex(255n),
          utils.hexToBigInt('0xff'),
          utils.bytesToHex(utils.hexToBytes('0x0a0b')),
          utils.keccak256('0x0a0b'),
          utils.isAddressEqual(address, address.toLowerCase() as `0x${string}`),
        ],
      ],
    ]
    for (const [name, run] of cases) expect(run(bundled as typeof viem), name).toEqual(run(viem))
  })
})

/**
 * In Node the fast backends (tiny-secp256k1's WASM, node:crypto's Ed25519) answer first, so the portable ones
 * are required at their first use instead of imported (src/crypto/portableSecp256k1.ts): a cold start does
 * not pay for libraries it does not use. Bundles import them statically (test/platforms/size.test.ts).
 */
describe('portable crypto backends in Node', () => {
  it.each([
    ['bip122', ['@bitcoinerlab/secp256k1', 'tweetnacl']],
    ['eip155', ['@bitcoinerlab/secp256k1', 'tweetnacl']],
    // @ton/core requires @ton/crypto, which requires tweetnacl itself.
    ['ton', ['@bitcoinerlab/secp256k1']],
  ])('importing wallet-rpc/%s loads none of %j', (namespace, libraries) => {
    const loaded = modulesLoadedByImport(`wallet-rpc/${namespace}`)
    for (const library of libraries)
      expect(loaded.filter((url) => url.includes(`/node_modules/${library}/`))).toEqual([])
  })

  it("importing wallet-rpc/bip122 does not load @noble/curves (the PSBT check's curve, required at first use)", () => {
    const loaded = modulesLoadedByImport('wallet-rpc/bip122')
    expect(loaded.filter((url) => url.includes('/node_modules/@noble/curves/'))).toEqual([])
  })

  it('still loads them when asked for the portable backends', () => {
    const { stdout } = runInPackage(
      `const { loadSecp256k1 } = await import('./dist/crypto/secp256k1.js')
       const { tweetnaclEd25519 } = await import('./dist/crypto/ed25519.js')
       const secp = await loadSecp256k1('@bitcoinerlab/secp256k1')
       const key = tweetnaclEd25519.fromSeed(new Uint8Array(32))
       process.stdout.write(JSON.stringify([secp.ecc.isPrivate(new Uint8Array(32).fill(1)), key.publicKey.length]))`,
    )
    expect(JSON.parse(stdout)).toEqual([true, 32])
  })
})

describe("the explorer sample in the pay sandbox's package", () => {
  const sandboxRoot = join(root, '../pay-sandbox')
  const sample = 'dist/explorer/sample'
  const sourceLogos = readdirSync(`${sandboxRoot}/src/explorer/sample/logos`).filter((name) =>
    name.endsWith('.svg'),
  )

  it('the tarball carries the listing file and every logo in sm, md and lg, generated by the build', () => {
    const paths = packedPaths(sandboxRoot)
    expect(sourceLogos.length).toBeGreaterThan(0)
    const expected = [
      `${sample}/listings.json`,
      ...['sm', 'md', 'lg'].flatMap((size) => sourceLogos.map((name) => `${sample}/logos/${size}/${name}`)),
    ]
    expect(expected.filter((path) => !paths.has(path))).toEqual([])
  })

  it('the built sandbox, reached through wallet-rpc/pay/sandbox, serves the built logos', () => {
    const { stdout } = runInPackage(
      `const { startPaySandbox } = await import('./dist/pay/sandbox/index.js')
       const sandbox = await startPaySandbox()
       try {
         const all = await (await fetch(sandbox.url + '/v3/all?projectId=demo')).json()
         const listing = Object.values(all.listings)[0]
         const answers = []
         for (const size of ['sm', 'md', 'lg']) {
           const response = await fetch(listing.image_url[size])
           answers.push([size, response.status, response.headers.get('content-type'), (await response.text()).length > 0])
         }
         process.stdout.write(JSON.stringify(answers))
       } finally { await sandbox.stop() }`,
    )
    expect(JSON.parse(stdout)).toEqual(
      ['sm', 'md', 'lg'].map((size) => [size, 200, expect.stringContaining('image/svg+xml'), true]),
    )
  })
})

/** The files of a real `npm pack` tarball, listed by tar: npm's --json output masks UUID-like names as ***. */
function packedPaths(cwd = root): Set<string> {
  const into = mkdtempSync(join(tmpdir(), 'wallet-rpc-pack-'))
  try {
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', into], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')
      .at(-1)
    const listed = execFileSync('tar', ['-tzf', join(into, String(tarball))], { encoding: 'utf8' })
    return new Set(listed.split('\n').map((line) => line.replace(/^package\//, '')))
  } finally {
    rmSync(into, { recursive: true, force: true })
  }
}
