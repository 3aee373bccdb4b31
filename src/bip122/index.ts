export { ecc, loadSecp256k1, type Secp256k1, type Secp256k1Backend, secp256k1Backend } from './ecc.js'
export { bip122MethodFactories, createMethodTable, type MethodFactory } from './methods/index.js'
export type * from './types.js'
