/**
 * Long loops (thousands of PSBT inputs, Solana transactions, TON messages) give the event loop a turn every
 * few milliseconds, so a large request never freezes a wallet's UI thread (React Native's JS thread, an
 * extension page) or stalls its other requests. Awaiting a resolved promise does not do that (microtasks run
 * before anything else); this waits for a real task with whatever timer the runtime has: `setImmediate`
 * (Node, React Native), else a `MessageChannel` (browsers, MV3 service workers: no 4 ms clamp), else
 * `setTimeout(0)` (Hermes without React Native). Nothing is created before the first pause.
 */

/** Milliseconds of work between two turns: well under the 50 ms a frame budget and an RN touch allow. */
export const sliceMs = 10

type Runtime = {
  setImmediate?: (callback: () => void) => unknown
  setTimeout?: (callback: () => void, ms: number) => unknown
  MessageChannel?: new () => {
    port1: { onmessage: (() => void) | null }
    port2: { postMessage(message: unknown): void }
  }
  performance?: { now(): number }
}

let schedule: ((resume: () => void) => void) | undefined

function chooseScheduler(): (resume: () => void) => void {
  const runtime = globalThis as unknown as Runtime
  if (typeof runtime.setImmediate === 'function') {
    const setImmediate = runtime.setImmediate
    return (resume) => setImmediate(resume)
  }
  if (typeof runtime.MessageChannel === 'function') {
    const channel = new runtime.MessageChannel()
    const waiting: Array<() => void> = []
    channel.port1.onmessage = () => waiting.shift()?.()
    return (resume) => {
      waiting.push(resume)
      channel.port2.postMessage(null)
    }
  }
  if (typeof runtime.setTimeout === 'function') {
    const setTimeout = runtime.setTimeout
    return (resume) => setTimeout(resume, 0)
  }
  return (resume) => queueMicrotask(resume)
}

/** Resolves after the event loop has run other tasks (timers, I/O, rendering). */
export function nextTurn(): Promise<void> {
  schedule ??= chooseScheduler()
  const run = schedule
  return new Promise((resolve) => run(resolve))
}

const clock = (): (() => number) => {
  const performance = (globalThis as unknown as Runtime).performance
  return typeof performance?.now === 'function' ? () => performance.now() : () => Date.now()
}

/** `await pause()` in a long loop: undefined (no wait) until the slice is used up, then a turn. */
export type Pause = () => Promise<void> | undefined

/**
 * A pause for a long loop: `await pause()` once per item costs a clock read until `sliceMs` of work has
 * passed since the last turn, then gives the event loop one. Each loop makes its own.
 */
export function timeSlicer(budgetMs = sliceMs): Pause {
  const now = clock()
  let since = now()
  return () => {
    if (now() - since < budgetMs) return undefined
    return nextTurn().then(() => {
      since = now()
    })
  }
}
