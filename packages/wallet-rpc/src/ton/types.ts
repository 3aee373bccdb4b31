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
