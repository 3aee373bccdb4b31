// The ton namespace's shared vocabulary: the signer, the wallet contract, the chain provider and the state the
// method files share. A leaf: it imports types only (erased at run time, so @ton/core's types are read
// directly, without tonCore.ts's Buffer check), and the files that define behaviour import it.
import type { Address, Cell, MessageRelaxed, StateInit } from '@ton/core'
import type { Ed25519Backend } from '../crypto/ed25519.js'

// ---------------------------------------------------------------------------------------------------------
// Keys

/**
 * What the ton namespace signs with: an Ed25519 public key and a function that signs bytes. Our own key
 * sources (`tonKeys.*`) keep the secret in a closure; an external signer (hardware, MPC, a remote vault)
 * implements the same two members. The namespace verifies an external signer's signatures before use.
 */
export type TonSigner = {
  readonly publicKey: Uint8Array
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>
  /** Milliseconds a signature may take before the request fails with -32603 (none by default). */
  readonly timeoutMs?: number
}

export type TonMnemonicOptions = {
  /** The optional TON mnemonic password. */
  password?: string
  /**
   * Refuse phrases that are not valid TON mnemonics (default true). TON derives a key from any word list,
   * so a BIP-39 phrase typed here by mistake would silently open a different, empty wallet.
   */
  validate?: boolean
  /** Ed25519 implementation; the fastest available by default. */
  backend?: Ed25519Backend
}

// ---------------------------------------------------------------------------------------------------------
// Wallet contracts (contracts.ts builds them)

/** The two wallet contracts this namespace speaks: v4R2 (the long-time default) and v5R1 ("W5"). */
export type TonWalletVersion = 'v4r2' | 'v5r1'

export type TonWalletOptions =
  | {
      version: 'v4r2'
      /** Default 698983191 + workchain, what every v4R2 wallet app uses. */
      walletId?: number
    }
  | {
      version: 'v5r1'
      /**
       * Serialized wallet id. By default it is derived from `networkGlobalId` and `subwalletNumber` the way
       * the contract's authors define it. Give it only to match a wallet that stored something else.
       */
      walletId?: number
      /**
       * -239 (mainnet, the default on BOTH chains, as @ton/ton and TON Connect WalletKit do) or -3.
       * Tonkeeper uses -3 for its testnet W5 wallets, which gives a different testnet address for the same
       * key; pass -3 to open that wallet (and then serve `ton:-3` only, since one StateInit is announced).
       */
      networkGlobalId?: number
      /** Default 0. */
      subwalletNumber?: number
    }

export type TransferRequest = {
  seqno: number
  /** Unix seconds after which the contract refuses the message. */
  validUntil: number
  /** Send mode applied to every message. */
  sendMode: number
  messages: readonly MessageRelaxed[]
}

export type WalletContract = {
  readonly version: TonWalletVersion
  readonly workchain: number
  readonly walletId: number
  readonly publicKey: Uint8Array
  readonly init: StateInit
  /** `ton_getStateInit`: base64 BoC of the StateInit cell; its hash is `address.hash`. */
  readonly stateInitBoc: string
  readonly address: Address
  /** `address` as `0:<hex>`, computed once. */
  readonly rawAddress: string
  /** `ton_getPublicKey`: lower-case hex, computed once. */
  readonly publicKeyHex: string
  /**
   * The wallet as sessions and reviews show it on `chainId`: user-friendly, non-bounceable (the wallet's own
   * form), test flag on ton:-3. Both forms are computed once: every review shows one.
   */
  account(chainId: string): string
  readonly maxMessages: number
  /** The cell whose hash the key signs. */
  unsignedTransfer(request: TransferRequest): Cell
  /** The external message body: v4R2 puts the signature in front, v5R1 behind. */
  signedTransfer(unsigned: Cell, signature: Uint8Array): Cell
  /** The external-in message the chain receives; `includeInit` deploys the wallet (first message). */
  externalMessage(body: Cell, includeInit: boolean): Cell
}

// ---------------------------------------------------------------------------------------------------------
// Chain provider (providers/toncenter.ts implements it)

/**
 * What the ton namespace needs from a chain: the wallet's state and seqno before signing, and a way to
 * broadcast the signed external message. `toncenter()` is the HTTP implementation; `startTonSandbox()`
 * (packages/devchains/src/tonSandbox.ts) puts the @ton/sandbox emulator behind the same interface.
 */
export type TonAccountState = 'active' | 'uninit' | 'frozen' | 'nonexist'

export type TonAccount = {
  state: TonAccountState
  /** Nanotons. */
  balance: bigint
}

export type TonChainProvider = {
  /** `address` is the raw form `<workchain>:<hex>`. */
  getAccount(address: string): Promise<TonAccount>
  /** The wallet contract's `seqno` get-method; only asked for active accounts. */
  getSeqno(address: string): Promise<number>
  /**
   * Broadcasts one external message BoC, once (never retried). `hash`, when the chain reports one, is the
   * hex hash of the message cell or its TEP-467 normalized hash; the namespace checks it against its own.
   */
  sendBoc(boc: Uint8Array): Promise<{ hash?: string }>
  /**
   * Runs the request on the chain's current state without sending it, for the review's balance changes
   * (`ton_sendMessage` calls it while planning, before `approve`). Optional: without it the review says the
   * request could not be simulated. Rejects when the emulator cannot answer.
   */
  emulate?(request: TonEmulationRequest): Promise<TonEmulationResult>
}

// ---------------------------------------------------------------------------------------------------------
// Emulation (emulation/*.ts read the emulators' answers; providers/toncenter.ts and providers/tonapi.ts ask them)

/**
 * What an emulator is given. Nothing in it is signed by the wallet's key: `unsignedBoc` carries 64 zero bytes
 * where the signature goes, and the rest is the dapp's own request. A signed external message is valid on chain
 * until its `valid_until`, and whoever holds one can broadcast it.
 */
export type TonEmulationRequest = {
  chainId: string
  wallet: {
    /** `0:<hex>`. */
    rawAddress: string
    /** User-friendly, non-bounceable, test flag on ton:-3 (the wallet's own form). */
    address: string
    publicKey: Uint8Array
    version: TonWalletVersion
    /** The wallet's StateInit BoC when it is not deployed yet (its first message deploys it). */
    stateInit: Uint8Array | undefined
  }
  seqno: number
  /** Unix seconds: the dapp's `valid_until`, else now + the namespace's `defaultValidFor`, capped as signed. */
  validUntil: number
  /** The dapp's messages as it sent them (amount as a decimal string, BoCs in standard base64). */
  messages: readonly TonEmulationMessage[]
  /**
   * The external-in message the wallet would send (its StateInit attached when not deployed), with 64 zero
   * bytes in place of the signature: for emulators that take a BoC and skip the signature check.
   */
  unsignedBoc: Uint8Array
  /** Aborted when the namespace stops waiting. */
  signal: AbortSignal
}

export type TonEmulationMessage = {
  /** User-friendly, as the dapp sent it: its tag carries the bounce flag. */
  address: string
  /** Nanotons, decimal. */
  amount: string
  payload?: string
  stateInit?: string
}

/** What the request does to the wallet, as an emulator saw it. */
export type TonEmulationResult = {
  /** Who emulated, for the review's note, e.g. `toncenter (toncenter.com)`. */
  emulator: string
  /** The wallet's net TON change in nanotons: negative when TON leaves; every fee included. */
  ton: bigint
  /** Net change per jetton master (raw `0:<hex>`), in the jetton's base units. */
  jettons: readonly TonJettonChange[]
  /** NFTs that leave or reach the wallet. */
  nfts: readonly TonNftMove[]
  /** What failed on the way (a bounce, a refused call, a skipped action); empty when nothing did. */
  failures: readonly TonEmulationFailure[]
  /** The emulator stopped before the end of the trace (its depth limit): later changes are missing. */
  incomplete?: boolean
  /**
   * Kinds of actions involving the wallet (a staking deposit, a liquidity withdrawal…) whose jetton or NFT
   * moves the adapter does not break down; the TON change counts them anyway. The review names them.
   */
  unreadActions?: readonly string[]
}

export type TonJettonChange = {
  /** The jetton master, raw `0:<hex>`. */
  master: string
  /** Signed base units. */
  amount: bigint
  /** As the emulator's metadata reports it: the jetton's own claim, never its identity. */
  symbol: string | undefined
  decimals: number | undefined
}

export type TonNftMove = {
  /** The NFT item contract, raw `0:<hex>`. */
  item: string
  collection: string | undefined
  /** The item's index in its collection, decimal. */
  index: string | undefined
  direction: 'in' | 'out'
}

export type TonEmulationFailure = {
  /** The account whose transaction or action failed, raw `0:<hex>`. */
  account: string
  /** The compute phase's exit code (or the action phase's result code), when there is one. */
  exitCode: number | undefined
  /** The incoming message went back to its sender, minus fees. */
  bounced: boolean
  /** In words, e.g. `compute phase failed` (the review adds the exit code and the bounce). */
  reason: string
}

/** An emulator on its own (`tonapi()`), or as `toncenter(url, { emulator })` takes it. */
export type TonEmulator = {
  emulate(request: TonEmulationRequest): Promise<TonEmulationResult>
}

// ---------------------------------------------------------------------------------------------------------
// What the method files share (context.ts creates it)

/** What the method files share: the wallet contract, the signer and the chain providers of one `ton()` namespace. */
export type TonWallet = {
  /** Resolves once the key is available (a mnemonic signer may still be deriving). */
  contract(): Promise<WalletContract>
  /** The contract once the key is available, else undefined (lets hot paths skip a promise). */
  readyContract(): WalletContract | undefined
  /**
   * Signs `message` (a 32-byte digest) and checks the signature. Call only from `execute`, after approval.
   * Synchronous for our own keys once ready (signData's cost is held to a fraction of one signature).
   */
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>
  /** The provider for `chainId`, or 5101 for sending methods on a chain without one. */
  provider(chainId: string, method: string): TonChainProvider
  /** Seconds a message stays valid when the dapp sets no `valid_until`. */
  readonly defaultValidFor: number
}
