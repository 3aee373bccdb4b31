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
 * and no task starts after it (those already started run to their end, their answers unused): one bad
 * answer among thousands costs a few requests, not all the rest.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  size: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const answers: R[] = new Array(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++
      try {
        answers[index] = await task(items[index]!, index)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker))
  return answers
}
