/**
 * `wallet-rpc/conformance` (Node only): the conformance runner behind `wallet-rpc conformance`, its
 * transports and reports, and the CLI's built-in wallet (`createCliWallet`) the demo plays against.
 */
export { createCliWallet } from '../walletFromOptions/wallet.js'
export {
  type ChainPool,
  createChainPool,
  type FundedOutput,
  type LocalChain,
  localChainIds,
} from './chains.js'
export { type ExecTransport, execTransport } from './exec.js'
export { type ExecAnswer, type ExecLine, execProtocol } from './execProtocol.js'
export { serveConformanceExec } from './execServer.js'
export {
  asHandlerObject,
  type ConformanceRequest,
  createBuiltinHandler,
  type HandleFunction,
  type Handler,
  type HandlerFactory,
  type HandlerObject,
  TransportError,
} from './handler.js'
export { type JsonReport, type JsonReportRecord, jsonReport, junitReport, verdictNames } from './reports.js'
export {
  type CaseOutcome,
  type CaseResult,
  caseLabel,
  defaultCaseTimeoutMs,
  judge,
  type PreparedCase,
  type RunOptions,
  type RunSummary,
  runConformance,
} from './runner.js'
export {
  type ChainKind,
  defaultVectorsDir,
  type Expectation,
  type KeyNeed,
  keysOf,
  type LoadedVectors,
  loadVectors,
  type VectorCase,
  type VectorFile,
  type VectorRequest,
  vectorFormat,
  type WalletConfig,
} from './vectors.js'
export {
  conformanceDappUrl,
  publicRelayUrl,
  runOverWalletConnect,
  runsOverWalletConnect,
  type WalletConnectOptions,
} from './walletconnect.js'
