// The chain provider interface lives in the leaf `types.ts`; this file keeps the names where they were.
export type {
  AccountInfo,
  SendOptions,
  SimulationResult,
  SolanaChainProvider,
  TokenBalance,
} from './types.js'
