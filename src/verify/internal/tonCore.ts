// biome-ignore-all assist/source/organizeImports: the Buffer check must be evaluated before @ton/core loads.
// The TON verifiers imports @ton/core through here, so a missing `Buffer` global is reported
// by `assertBufferGlobal`'s clear error instead of @ton/core's "Buffer is not defined".
export { assertBufferGlobal } from '../../core/bufferGlobal.js'
export * from '@ton/core'
