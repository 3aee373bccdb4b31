import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

// Preloaded into the child: prints every ESM resolution, and at exit every CommonJS module in require's cache.
const recordModules = `data:text/javascript,${encodeURIComponent(`
import { register, createRequire } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  process.stderr.write('MODULE ' + resolved.url + '\\\\n')
  return resolved
}\`))
process.on('exit', () => {
  for (const file of Object.keys(createRequire(process.cwd() + '/').cache)) process.stderr.write('MODULE ' + file + '\\n')
})
`)}`

/**
 * Runs `script`, an ES module, in a fresh Node process from the package root (after `preload`ed modules) and
 * returns what it printed; the script failing fails the test.
 */
export function runInPackage(script: string, preload: string[] = []): { stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    [...preload.flatMap((module) => ['--import', module]), '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8' },
  )
  expect(result.status, result.stderr).toBe(0)
  return { stdout: result.stdout, stderr: result.stderr }
}

/**
 * Every module (URL or CommonJS path) a fresh Node process loads while it runs `script`, an ES module run from
 * the package root; with `sources`, `.ts` files load through tsx. The script failing fails the test.
 */
export function modulesLoadedBy(script: string, { sources = false } = {}): string[] {
  return runInPackage(script, [recordModules, ...(sources ? ['tsx'] : [])])
    .stderr.split('\n')
    .filter((line) => line.startsWith('MODULE '))
    .map((line) => line.slice('MODULE '.length))
}

/** `modulesLoadedBy` of a script that imports `specifier`. */
export const modulesLoadedByImport = (specifier: string, options: { sources?: boolean } = {}): string[] =>
  modulesLoadedBy(`await import(${JSON.stringify(specifier)})`, options)
