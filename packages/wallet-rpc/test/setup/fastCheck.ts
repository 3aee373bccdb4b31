import fc from 'fast-check'

/**
 * Property tests explore with a fresh random seed on every local run. In CI (`CI` set) they replay one fixed
 * seed, so a run of the same commit is reproducible and a landing is never decided by the draw; `FC_SEED`
 * replays any seed a failure printed, locally or in CI.
 */
const seed = process.env.FC_SEED ?? (process.env.CI ? '20261125' : undefined)
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) })
