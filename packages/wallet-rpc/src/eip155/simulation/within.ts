/** What `within` rejects with when time runs out. */
export class SimulationTimeout extends Error {
  override name = 'SimulationTimeout'
}

/**
 * `work`, or a SimulationTimeout after `ms`. An EIP-1193 request cannot be cancelled, so a late answer is
 * only dropped.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SimulationTimeout(`no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}
