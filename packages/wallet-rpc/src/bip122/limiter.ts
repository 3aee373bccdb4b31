/** Runs at most a fixed number of tasks at once (chain-provider reads in flight). */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>

/** Runs at most `size` tasks at once; a finishing task hands its slot straight to the next waiting one. */
export function limiter(size: number): Limiter {
  let active = 0
  const queue: Array<() => void> = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= size) await new Promise<void>((resolve) => queue.push(resolve))
    else active++
    try {
      return await task()
    } finally {
      const next = queue.shift()
      if (next) next()
      else active--
    }
  }
}

/**
 * `task` for every item, at most `size` at once, the answers in the items' order. The first failure rejects
 * (the tasks already started run to their end, their answers unused).
 */
export function mapLimited<T, R>(
  items: readonly T[],
  size: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const limit = limiter(size)
  return Promise.all(items.map((item, index) => limit(() => task(item, index))))
}
