import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * What a user installs is what this proves: every publishable workspace packed with `npm pack`, the tarballs
 * installed alone in a fresh project (no workspace, no devDependencies), then every export imported, every
 * command the CLI's `--help` lists run, each package's `dependencies` compared with what its `dist/` imports,
 * and the installed production tree read for install scripts. The library is installed first on its own (what
 * a wallet gets), then the pay sandbox beside it.
 */
const workspace = fileURLToPath(new URL('../../..', import.meta.url))
const packagesDir = join(workspace, 'packages')

type PackageJson = {
  name: string
  version: string
  private?: boolean
  bin?: Record<string, string>
  exports?: Record<string, unknown>
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  scripts?: Record<string, string>
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PackageJson
const publishable = readdirSync(packagesDir)
  .map((folder) => ({
    folder: join(packagesDir, folder),
    pkg: readJson(join(packagesDir, folder, 'package.json')),
  }))
  .filter(({ pkg }) => pkg.private !== true)
const library = publishable.find(({ pkg }) => pkg.name === 'wallet-rpc')!
const sandbox = publishable.find(({ pkg }) => pkg.name === '@wallet-rpc/pay-sandbox')!

const project = mkdtempSync(join(tmpdir(), 'wallet-rpc-installed-'))
const tarballs = new Map<string, string>()
const npmQuiet = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

function install(names: string[]) {
  execFileSync('npm', ['install', ...npmQuiet, ...names.map((name) => tarballs.get(name)!)], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
}

/** Runs `node args` in the project (bins through their installed path, like `npx`). */
function run(args: string[], input?: string) {
  return spawnSync(process.execPath, args, {
    cwd: project,
    encoding: 'utf8',
    input: input ?? '',
    env: { ...process.env, WALLET_RPC_MNEMONIC: mnemonic },
    timeout: 120_000,
  })
}
const bin = (pkg: PackageJson, name: string) => join(project, 'node_modules', pkg.name, pkg.bin![name]!)
const walletRpc = (args: string[], input?: string) => run([bin(library.pkg, 'wallet-rpc'), ...args], input)

/** What `import(specifier)` gives in the project: its export names, or the error's code and message. */
function importInProject(specifier: string): { names?: string[]; code?: string; message?: string } {
  const result = run([
    '--input-type=module',
    '-e',
    `try { const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify({ names: Object.keys(m) })) }
     catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`,
  ])
  return JSON.parse(result.stdout) as { names?: string[]; code?: string; message?: string }
}

const specifiers = (pkg: PackageJson) =>
  Object.keys(pkg.exports ?? {})
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`))

const packageSpecifier = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]*)?$/

/** The packages a built file names: static and dynamic imports of a literal, and `require`-style loads. */
function bareImports(folder: string): Set<string> {
  const found = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.js')) {
        const code = readFileSync(path, 'utf8')
        const patterns = [
          /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"\s]+)['"]/gm,
          /^\s*import\s*['"]([^'"\s]+)['"]/gm,
          /\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/g,
          /\b\w*[rR]equire\w*\(\s*['"]([^'"\s]+)['"]\s*\)/g,
        ]
        for (const pattern of patterns)
          for (const [, specifier] of code.matchAll(pattern)) {
            if (specifier === undefined || !packageSpecifier.test(specifier) || specifier.startsWith('node:'))
              continue
            const name = specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/')
            if (!builtinModules.includes(name)) found.add(name)
          }
      }
    }
  }
  walk(folder)
  return found
}

beforeAll(() => {
  for (const { folder } of publishable)
    if (!existsSync(join(folder, 'dist')))
      execFileSync('npm', ['run', 'build'], { cwd: workspace, stdio: 'ignore' })
  const packed = join(project, 'tarballs')
  mkdirSync(packed)
  for (const { folder, pkg } of publishable) {
    const file = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], {
      cwd: folder,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')
      .at(-1)!
    tarballs.set(pkg.name, join(packed, file))
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  install(['wallet-rpc'])
}, 300_000)

afterAll(() => rmSync(project, { recursive: true, force: true }))

describe('wallet-rpc installed alone (what a wallet gets)', () => {
  it('every export imports; an optional peer that is missing is named by the error', () => {
    const optional = Object.entries(library.pkg.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional === true)
      .map(([name]) => name)
    for (const specifier of specifiers(library.pkg)) {
      const answer = importInProject(specifier)
      if (answer.names !== undefined) {
        expect(answer.names.length, specifier).toBeGreaterThan(0)
        continue
      }
      expect(answer.code, `${specifier}: ${answer.message}`).toBe('ERR_MODULE_NOT_FOUND')
      const missing = optional.find((name) => answer.message?.includes(`'${name}'`))
      expect(missing, `${specifier}: ${answer.message}`).toBeDefined()
    }
    // The fixed name of the sandbox, without its package: the error names the package to install.
    expect(importInProject('wallet-rpc/pay/sandbox').message).toContain("'@wallet-rpc/pay-sandbox'")
  })

  it("wallet-rpc/pay/postgres without pg: it loads, and a store given a connectionString fails naming 'pg'", () => {
    const result = run([
      '--input-type=module',
      '-e',
      `const { postgresWebhookStore } = await import('wallet-rpc/pay/postgres')
       const store = postgresWebhookStore({ connectionString: 'postgres://127.0.0.1:1/none' })
       await store.ready().then(() => console.log('ready'), (error) => console.log(error.message))`,
    ])
    expect(result.stdout.trim()).toBe(
      "postgresWebhookStore({ connectionString }) needs the 'pg' package: npm install pg (or pass your own pool)",
    )
  })

  it('every command `wallet-rpc --help` lists runs: handle, properties, conformance; demo and pay-sandbox name what to install', () => {
    const help = walletRpc(['--help'])
    expect(help.status).toBe(0)
    const commands = [
      ...help.stdout
        .split('Commands:')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}(\S+)/gm),
    ].map(([, name]) => name!)
    expect(commands).toEqual(['handle', 'properties', 'conformance', 'demo', 'pay-sandbox'])
    for (const command of commands.filter((name) => name !== 'pay-sandbox')) {
      const usage = walletRpc([command, '--help'])
      expect(usage.status, `${command} --help: ${usage.stderr}`).toBe(0)
      expect(usage.stdout, command).toContain(`wallet-rpc ${command}`)
    }

    const account = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' // m/44'/60'/0'/0/0 of the mnemonic
    const request = {
      chainId: 'eip155:1',
      request: { id: 7, jsonrpc: '2.0', method: 'personal_sign', params: ['0x68656c6c6f', account] },
      origin: 'https://dapp.example',
    }
    const handled = walletRpc(['handle', '--approve', 'all'], `${JSON.stringify(request)}\n`)
    expect(handled.status, handled.stderr).toBe(0)
    const answer = JSON.parse(handled.stdout) as { id: number; result: string }
    expect(answer.id).toBe(7)
    expect(answer.result).toMatch(/^0x[0-9a-f]{130}$/)

    const properties = walletRpc(['properties'])
    expect(properties.status, properties.stderr).toBe(0)
    expect(Object.keys(JSON.parse(properties.stdout)).length).toBeGreaterThan(0)

    // The vectors ship in the tarball; a key-free case runs against the built-in wallet without any chain.
    const conformance = walletRpc(['conformance', '--filter', 'eip155/personal_sign', '--offline'])
    expect(conformance.status, conformance.stdout + conformance.stderr).toBe(0)
    expect(conformance.stdout).toMatch(/[1-9]\d* passed, 0 failed/)

    const demo = walletRpc(['demo'])
    expect(demo.status).toBe(2)
    expect(demo.stderr).toContain('@wallet-rpc/devchains')
    expect(demo.stderr).toContain('npm ci && npm run demo')

    const paySandbox = walletRpc(['pay-sandbox', '--help'])
    expect(paySandbox.status).toBe(2)
    expect(paySandbox.stderr).toContain('npm install @wallet-rpc/pay-sandbox')
  })
})

describe('with @wallet-rpc/pay-sandbox installed beside it', () => {
  beforeAll(() => install(['wallet-rpc', '@wallet-rpc/pay-sandbox']), 300_000)

  it('every export of both packages imports, wallet-rpc/pay/sandbox included', () => {
    for (const specifier of [...specifiers(sandbox.pkg), 'wallet-rpc/pay/sandbox']) {
      const answer = importInProject(specifier)
      expect(answer.names?.length, `${specifier}: ${answer.message}`).toBeGreaterThan(0)
    }
    expect(importInProject('wallet-rpc/pay/sandbox').names).toEqual(
      importInProject('@wallet-rpc/pay-sandbox').names,
    )
  })

  it.each([
    ['wallet-rpc pay-sandbox', () => [bin(library.pkg, 'wallet-rpc'), 'pay-sandbox']],
    ['wallet-rpc-pay-sandbox', () => [bin(sandbox.pkg, 'wallet-rpc-pay-sandbox')]],
  ])(
    '%s serves on 127.0.0.1, answers a request (the shipped explorer logos too), and stops',
    async (_, args) => {
      expect(run([...args(), '--help']).stdout).toContain('pay-sandbox [options]')
      const child = spawn(process.execPath, args(), { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] })
      try {
        const url = await listeningUrl(child)
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
        const all = (await (await fetch(`${url}/v3/all?projectId=demo`)).json()) as {
          listings: Record<string, { image_url: { sm: string } }>
        }
        const listing = Object.values(all.listings)[0]!
        const logo = await fetch(listing.image_url.sm)
        expect([logo.status, logo.headers.get('content-type')]).toEqual([
          200,
          expect.stringContaining('image/svg'),
        ])
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGINT')
        expect(await exited).toBe(0)
      }
    },
  )

  it("each package's dependencies are exactly the packages its dist/ imports (its optional peers aside)", () => {
    for (const { pkg } of publishable) {
      const installed = join(project, 'node_modules', pkg.name)
      const imported = [...bareImports(join(installed, 'dist'))].filter(
        (name) => name !== pkg.name && pkg.peerDependencies?.[name] === undefined,
      )
      const dependencies = Object.keys(pkg.dependencies ?? {})
      // A dependency nothing imports is allowed only as the required peer of one that is imported
      // (@ton/core needs @ton/crypto beside it).
      const peerOfImported = (name: string) =>
        imported.some((user) => {
          const meta = readJson(join(project, 'node_modules', user, 'package.json'))
          return (
            meta.peerDependencies?.[name] !== undefined &&
            meta.peerDependenciesMeta?.[name]?.optional !== true
          )
        })
      expect(imported.length, pkg.name).toBeGreaterThan(0)
      expect(
        imported.filter((name) => !dependencies.includes(name)),
        `${pkg.name}: imported, undeclared`,
      ).toEqual([])
      expect(
        dependencies.filter((name) => !imported.includes(name) && !peerOfImported(name)),
        `${pkg.name}: declared, never imported`,
      ).toEqual([])
    }
  })

  it('no package in the installed production tree has an install script', () => {
    const withScripts: string[] = []
    const visit = (modules: string) => {
      if (!existsSync(modules)) return
      for (const entry of readdirSync(modules)) {
        if (entry.startsWith('.')) continue
        const names = entry.startsWith('@')
          ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`)
          : [entry]
        for (const name of names) {
          const folder = join(modules, name)
          const file = join(folder, 'package.json')
          if (!existsSync(file)) continue
          const { scripts = {} } = readJson(file)
          for (const hook of ['preinstall', 'install', 'postinstall'])
            if (scripts[hook] !== undefined) withScripts.push(`${name} ${hook}: ${scripts[hook]}`)
          visit(join(folder, 'node_modules'))
        }
      }
    }
    visit(join(project, 'node_modules'))
    expect(withScripts).toEqual([])
  })
})

/** The `http://127.0.0.1:PORT` the sandbox prints once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += String(chunk)
      const match = output.match(/listening on (http:\/\/\S+)/)
      if (match) resolve(match[1]!)
    })
    child.stderr!.on('data', (chunk: Buffer) => (output += String(chunk)))
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${output}`)))
  })
}
