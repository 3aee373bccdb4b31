import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'

/**
 * Every `verify*` and `parse*` function the package exports is fed arbitrary values (null, undefined,
 * numbers, objects, strings, and Proxies whose every trap throws) in every argument, and must keep its
 * documented promise: return its result shape, never throw. The functions are found in the built subpath
 * exports, so a new one is covered as soon as it is exported (and fails here until its promise is listed).
 */
const root = new URL('../..', import.meta.url).pathname
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
  exports: Record<string, string | { default?: string }>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/** `{ valid: true }` or `{ valid: false, reason }`: wallet-rpc/verify ("never throws, whatever it is given"). */
const verifyResult = (value: unknown) =>
  isRecord(value) && (value.valid === true || (value.valid === false && typeof value.reason === 'string'))

/**
 * The documented answer of each function: the result shape it returns, and for the few documented to throw on
 * bad input, the error they throw (anything else, such as "Cannot read properties of undefined", is a bug).
 * A function missing here fails the test until its promise is added.
 */
type Promised = { returns: (result: unknown) => boolean; throws?: (error: unknown) => boolean }
const promises: Record<string, Promised> = {
  verifyWebhook: {
    returns: (value) =>
      isRecord(value) &&
      ((value.ok === true && typeof value.id === 'string') ||
        (value.ok === false && typeof value.reason === 'string' && typeof value.message === 'string')),
  },
  // "Never throws for any input; a `trustedHosts` option that is not a list of bare hostnames is a TypeError".
  parsePaymentLink: {
    returns: (value) => value === null || typeof value === 'string',
    throws: (error) => error instanceof TypeError && error.message.startsWith('trustedHosts: '),
  },
  parseListingQuery: {
    returns: (value) => isRecord(value) && (value.ok === true || Array.isArray(value.issues)),
  },
  parseChainsQuery: {
    returns: (value) => isRecord(value) && (value.ok === true || Array.isArray(value.issues)),
  },
  parseLogoRequest: {
    returns: (value) => isRecord(value) && (value.ok === true || Array.isArray(value.issues)),
  },
  // The pay sandbox's `--faults` parser (wallet-rpc/pay/sandbox forwards it): "Throws a TypeError naming the bad item".
  parseFaultSpec: {
    returns: isRecord,
    throws: (error) => error instanceof TypeError && error.message.includes('--faults'),
  },
}
const promiseOf = (name: string): Promised | undefined =>
  promises[name] ?? (name.startsWith('verify') ? { returns: verifyResult } : undefined)

const throwing = (target: object) =>
  new Proxy(target, {
    get: () => {
      throw new Error('trap: get')
    },
    has: () => {
      throw new Error('trap: has')
    },
    ownKeys: () => {
      throw new Error('trap: ownKeys')
    },
    getPrototypeOf: () => {
      throw new Error('trap: getPrototypeOf')
    },
    getOwnPropertyDescriptor: () => {
      throw new Error('trap: getOwnPropertyDescriptor')
    },
  })

/** Stand-ins turned into throwing Proxies inside the property (fast-check inspects what it generates). */
const proxyObject = { stand_in: 'a Proxy of an object whose every trap throws' }
const proxyArray = { stand_in: 'a Proxy of an array whose every trap throws' }
const mapOfProxy = { stand_in: 'a Map whose webhook-id value is such a Proxy' }
const materialize = (value: unknown): unknown =>
  value === proxyObject
    ? throwing({})
    : value === proxyArray
      ? throwing([])
      : value === mapOfProxy
        ? new Map([['webhook-id', throwing({})]])
        : value

const arbitraryValue = fc.oneof(
  fc.anything(),
  fc.constantFrom(null, undefined, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, '', 'v1,', []),
  fc.string(),
  fc.uint8Array({ maxLength: 64 }),
  fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 4 }),
  fc.constantFrom(proxyObject, proxyArray, mapOfProxy),
)

type Exported = { name: string; fn: (...args: unknown[]) => unknown; subpaths: string[] }

async function exportedFunctions(): Promise<Exported[]> {
  const byFunction = new Map<unknown, Exported>()
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default
    if (file === undefined || !file.endsWith('.js')) continue
    const module = (await import(`${root}/${file}`)) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'function' || !/^(verify|parse)[A-Z]/.test(name)) continue
      const known = byFunction.get(value)
      if (known === undefined)
        byFunction.set(value, { name, fn: value as Exported['fn'], subpaths: [subpath] })
      else known.subpaths.push(subpath)
    }
  }
  return [...byFunction.values()].sort((a, b) => a.name.localeCompare(b.name))
}

describe('every exported verify*/parse* function under arbitrary input', () => {
  let functions: Exported[] = []
  beforeAll(async () => {
    if (!existsSync(`${root}/dist/index.js`))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
    functions = await exportedFunctions()
  })

  it('finds them in the built subpaths, each with its documented promise', () => {
    expect(functions.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['verifyWebhook', 'parsePaymentLink']),
    )
    expect(functions.length).toBeGreaterThan(20)
    expect(
      functions.filter((entry) => promiseOf(entry.name) === undefined).map((entry) => entry.name),
    ).toEqual([])
  })

  it('verifyWebhook answers missing_headers for absent headers instead of throwing', async () => {
    const verify = functions.find((entry) => entry.name === 'verifyWebhook')!.fn
    for (const headers of [undefined, null, throwing({})])
      expect(verify('whsec_AAAA', headers, '{}')).toMatchObject({ ok: false, reason: 'missing_headers' })
  })

  it('never throw and always answer their result shape', async () => {
    const broken: string[] = []
    for (const { name, fn, subpaths } of functions) {
      const promise = promiseOf(name)!
      fc.assert(
        fc.property(fc.array(arbitraryValue, { maxLength: 4 }), (generated) => {
          const args = generated.map(materialize)
          let result: unknown
          try {
            result = fn(...args)
          } catch (error) {
            if (!promise.throws?.(error))
              broken.push(`${name} (${subpaths.join(', ')}) threw ${String(error)}`)
            return true
          }
          if (!promise.returns(result)) broken.push(`${name} answered ${String(JSON.stringify(result))}`)
          return true
        }),
        { numRuns: 150 },
      )
    }
    // The first way each function broke its promise.
    const firstPerFunction = new Map(broken.map((line) => [line.split(' ')[0], line] as const))
    expect([...firstPerFunction.values()]).toEqual([])
  })
})
