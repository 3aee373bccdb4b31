// The chain provider interface lives in the leaf `types.ts`; this file keeps the names where they were.
export type {
  TonAccount,
  TonAccountState,
  TonChainProvider,
  TonEmulationFailure,
  TonEmulationMessage,
  TonEmulationRequest,
  TonEmulationResult,
  TonEmulator,
  TonJettonChange,
  TonNftMove,
} from './types.js'
