/** What every benchmark times a batch with, and how it summarises rounds. */

export type Sample = { cpu: number; wall: number }

/**
 * µs per call of `batch`, which makes `calls` calls: this process's CPU time (`process.cpuUsage`, steadier
 * than wall time on a shared machine) and wall-clock time.
 */
export async function measure(calls: number, batch: () => unknown): Promise<Sample> {
  const cpuStart = process.cpuUsage()
  const wallStart = process.hrtime.bigint()
  await batch()
  const wall = Number(process.hrtime.bigint() - wallStart) / 1000 / calls
  const cpu = process.cpuUsage(cpuStart)
  return { cpu: (cpu.user + cpu.system) / calls, wall }
}

/** `measure` of `calls` awaited calls of `call(i)`. */
export function measureCalls(calls: number, call: (i: number) => unknown): Promise<Sample> {
  return measure(calls, async () => {
    for (let i = 0; i < calls; i++) await call(i)
  })
}

/** The value a fraction `q` of the way up the sorted values (0.5: the median). */
export const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)]!

export const median = (values: number[]) => quantile(values, 0.5)
