export { type ChainPool, createChainPool, type LocalChain, localChainIds } from './chains.js'
export {
  asHandlerObject,
  type ConformanceRequest,
  createBuiltinHandler,
  type HandleFunction,
  type Handler,
  type HandlerFactory,
  type HandlerObject,
} from './handler.js'
export {
  type CaseOutcome,
  type CaseResult,
  judge,
  type RunOptions,
  type RunSummary,
  runConformance,
} from './runner.js'
export { serveToncenter, type ToncenterFacade } from './toncenterFacade.js'
export {
  type ChainKind,
  defaultVectorsDir,
  type Expectation,
  type LoadedVectors,
  loadVectors,
  type VectorCase,
  type VectorFile,
  type VectorRequest,
  vectorFormat,
  type WalletConfig,
} from './vectors.js'
