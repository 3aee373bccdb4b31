// biome-ignore-all assist/source/organizeImports: the Buffer check must be evaluated before @ton/core loads.
// Every module of this namespace imports @ton/core through here, so a missing `Buffer` global is reported
// by `assertBufferGlobal`'s clear error instead of @ton/core's "Buffer is not defined".
export { assertBufferGlobal } from '../core/bufferGlobal.js'
export * from '@ton/core'
