/**
 * Counts turns of the event loop (a `setImmediate` chain) from now until the returned `stop()`, which gives
 * the count: a request that never yields leaves it at one or two.
 */
export function countTurns(): () => number {
  let turns = 0
  let done = false
  const probe = () => {
    turns++
    if (!done) setImmediate(probe)
  }
  setImmediate(probe)
  return () => {
    done = true
    return turns
  }
}
