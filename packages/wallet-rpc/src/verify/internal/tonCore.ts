// biome-ignore-all assist/source/organizeImports: the Buffer check must be evaluated before @ton/core loads.
// The TON verifiers import @ton/core through here, so a missing `Buffer` global is reported at load by
// `assertBufferGlobal`'s clear error instead of @ton/core's "Buffer is not defined". They also call it, so
// that a bundler honouring `"sideEffects": false` keeps the check (webpack dropped an unused re-export).
export { assertBufferGlobal } from '../../core/bufferGlobal.js'
export * from '@ton/core'
