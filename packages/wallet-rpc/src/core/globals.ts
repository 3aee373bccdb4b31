/** The web-platform globals the namespaces use, and what a React Native app installs to get each. */
const platformGlobals: Array<{ name: string; present: () => boolean; fix: string }> = [
  {
    name: 'TextEncoder',
    present: () => typeof globalThis.TextEncoder === 'function',
    fix: 'fast-text-encoding',
  },
  {
    name: 'TextDecoder',
    present: () => typeof globalThis.TextDecoder === 'function',
    fix: 'fast-text-encoding',
  },
  {
    name: 'crypto.getRandomValues',
    present: () => typeof globalThis.crypto?.getRandomValues === 'function',
    fix: 'react-native-get-random-values',
  },
  { name: 'URL', present: () => typeof globalThis.URL === 'function', fix: 'react-native-url-polyfill/auto' },
  {
    name: 'atob/btoa',
    present: () => typeof globalThis.atob === 'function' && typeof globalThis.btoa === 'function',
    fix: 'React Native ≥ 0.74, or a base-64 polyfill',
  },
]

/**
 * Checked when a namespace is created: a missing global is named there, with the package that provides it,
 * instead of surfacing later as -32603 inside a request (or, for TextEncoder, as a wrong "invalid" verdict).
 */
export function assertPlatformGlobals(): void {
  const missing = platformGlobals.filter((global) => !global.present())
  if (missing.length === 0) return
  throw new ReferenceError(
    `wallet-rpc needs ${missing.map((global) => global.name).join(', ')}, missing in this runtime. In React Native, import first: ${[...new Set(missing.map((global) => global.fix))].join('; ')} (README, Platforms).`,
  )
}
