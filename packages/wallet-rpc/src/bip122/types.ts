import type { Network } from 'bitcoinjs-lib'
import type { OutputAssetsProvider } from './assets/types.js'
import type { Bip122Policy } from './policy.js'

// ---------------------------------------------------------------------------------------------------------
// Networks

export type NetworkName = 'mainnet' | 'testnet' | 'regtest'

/** One row of the chain table (`chains.ts`): what a CAIP-2 bip122 chain means for keys and addresses. */
export type Bip122Chain = {
  /** CAIP-2, e.g. `bip122:000000000019d6689c085ae165831e93`. */
  chainId: string
  name: NetworkName
  /** BIP-44 coin type: 0 on mainnet, 1 on every test network. */
  coinType: 0 | 1
  /** bitcoinjs-lib network parameters (bech32 HRP `bc`/`tb`/`bcrt`, base58 versions, BIP-32 versions). */
  network: Network
}

// ---------------------------------------------------------------------------------------------------------
// Account model

export type Purpose = 44 | 49 | 84 | 86
export type Change = 0 | 1
export type AddressType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr'
/** `payment` = purposes 44, 49, 84; `ordinal` = purpose 86 (taproot), as the Reown sample wallet maps them. */
export type Intention = 'payment' | 'ordinal'

/** `m / purpose' / coinType' / account' / change / index`. */
export type KeyPath = {
  purpose: Purpose
  coinType: 0 | 1
  account: number
  change: Change
  index: number
}

/** One address of an account, with everything needed to recognise and sign for it. */
export type AccountAddress = {
  address: string
  addressType: AddressType
  purpose: Purpose
  change: Change
  index: number
  keyPath: KeyPath
  /** `m/84'/0'/0'/0/5`; undefined for a static (single-key) wallet, whose key has no path. */
  path: string | undefined
  intention: Intention
  /** 33-byte compressed public key (for P2TR: the untweaked internal key). */
  publicKey: Uint8Array
  /** What getAccountAddresses reports: compressed hex, or for P2TR the x-only internal key hex (BIP-86 `internal_key`). */
  publicKeyHex: string
  scriptPubKey: Uint8Array
  /** P2SH-P2WPKH only: `0014‖hash160(publicKey)`. */
  redeemScript?: Uint8Array
  /** P2TR only: x-only internal key (32 bytes) and BIP-86 tweaked output key. */
  internalKey?: Uint8Array
  outputKey?: Uint8Array
}

/** What getAccountAddresses returns per address (and `bip122_addressesChanged` carries). */
export type AddressEntry = { address: string; publicKey?: string; path?: string; intention?: Intention }

// ---------------------------------------------------------------------------------------------------------
// Key providers: public keys and sign operations, never a secret.

/**
 * Holds the keys. `hd` derives every `KeyPath` of its `account` (mnemonic/seed, hardware, MPC); `single` is a
 * static wallet: one key, one address of `addressType`, and it answers only for the path the account model
 * gives it (`m/purpose'/coinType'/0'/0/0` of that type).
 * All sign operations take a 32-byte hash that the caller computed; the provider does not parse transactions.
 * A hardware or MPC signer is one too: wrap it with `externalSigner()` so every public key and signature it
 * returns is checked before use.
 */
export type KeyProvider = {
  readonly kind: 'hd' | 'single'
  /** Account index (`hd`); 0 for `single`. */
  readonly account: number
  /** `single` only: the one address type it serves. */
  readonly addressType?: AddressType
  /** 33-byte compressed public key at `path`. */
  publicKey(path: KeyPath): Uint8Array | Promise<Uint8Array>
  /** ECDSA, 64-byte compact r‖s, RFC 6979 (no extra entropy, no low-R grinding), low-S. */
  signEcdsa(path: KeyPath, hash: Uint8Array): Promise<Uint8Array>
  /** Optional fast path: the same signature with its recovery id (BIP-137 needs it; recovered otherwise). */
  signEcdsaRecoverable?(
    path: KeyPath,
    hash: Uint8Array,
  ): Promise<{ signature: Uint8Array; recoveryId: 0 | 1 | 2 | 3 }>
  /**
   * BIP-340 Schnorr over `hash` with the BIP-86 tweaked key of `path` (tweak = TapTweak(xonly(P)), no script
   * tree), the key-path spend of the P2TR address at `path`. The tweak is applied inside the provider.
   * `auxRand` (32 bytes) is the BIP-340 auxiliary randomness; the provider draws fresh randomness when absent.
   */
  signTaproot(path: KeyPath, hash: Uint8Array, auxRand?: Uint8Array): Promise<Uint8Array>
  /** Milliseconds a signature may take before the request fails with -32603 (none by default). */
  readonly timeoutMs?: number
}

// ---------------------------------------------------------------------------------------------------------
// Chain providers

export type Utxo = {
  txid: string
  vout: number
  /** Satoshis (integer; every amount fits a double exactly). */
  value: number
  confirmed: boolean
  blockHeight?: number
}

export type AddressActivity = {
  /** Confirmed plus mempool transactions touching the address; > 0 means "used" (BIP-44 discovery). */
  txCount: number
}

/** sat/vB per confirmation target in blocks, e.g. `{ "1": 30.2, "6": 12, "144": 1.01 }`. */
export type FeeRates = Record<string, number>

/** Reads may be retried by the implementation; `broadcast` never is. */
export type ChainProvider = {
  utxos(address: string): Promise<Utxo[]>
  addressActivity(address: string): Promise<AddressActivity>
  feeRates(): Promise<FeeRates>
  /** Serialized transaction (for `nonWitnessUtxo`). */
  rawTransaction(txid: string): Promise<Uint8Array>
  /**
   * Optional: several serialized transactions, in the order asked, fetched as the provider does best
   * (`bitcoinCore()`: JSON-RPC batches; `esplora()`: a few requests in flight). Without it the wallet calls
   * `rawTransaction` a few at a time. The wallet hash-checks each against its txid either way. A wrapper
   * that replaces `rawTransaction` must replace this too, or leave it out.
   */
  rawTransactions?(txids: readonly string[]): Promise<Uint8Array[]>
  /** Sends the serialized transaction once; returns the txid the provider reports (the caller compares it). */
  broadcast(rawTransaction: Uint8Array): Promise<string>
}

// ---------------------------------------------------------------------------------------------------------
// Account, as the methods see it

export type AccountUtxo = Utxo & { owner: AccountAddress }

/** One account on one chain: its addresses, ownership checks and signing (keys stay in the provider). */
export type Account = {
  /** The first external P2WPKH address (the spec's account identifier). */
  readonly id: string
  readonly chain: Bip122Chain
  /** A static wallet (one key, one address) or a dynamic HD account. */
  readonly isStatic: boolean
  /** The account's address `address` if it was derived already (a map lookup, no derivation). */
  knownAddress(address: string): AccountAddress | undefined
  /** The account's address `address`, or undefined when it is not ours (searched within the discovery window). */
  findAddress(address: string): Promise<AccountAddress | undefined>
  /** The account's address paying to `scriptPubKey`, or undefined. */
  findScript(scriptPubKey: Uint8Array): Promise<AccountAddress | undefined>
  /** One address by type/chain/index (derived and cached). */
  address(purpose: Purpose, change: Change, index: number): Promise<AccountAddress>
  /** Every UTXO of the account's used addresses (needs a chain provider). */
  utxos(): Promise<AccountUtxo[]>
  /** The first unused P2WPKH change address (first unused receive address for a static wallet: its only one). */
  changeAddress(): Promise<AccountAddress>
  /**
   * The getAccountAddresses answer (spec rules; `intentions` filters, unknown intentions match nothing).
   * Served from the last discovery while it is younger than the account's cache age; the array is frozen.
   */
  addressEntries(intentions?: readonly string[]): Promise<readonly AddressEntry[]>
  /** Re-reads address activity and UTXOs from the chain provider now (no-op without a provider). */
  refresh(): Promise<void>
  /** ECDSA (64-byte compact, low-S) with the key of `owner`. Call only from a method's `execute`. */
  signEcdsa(owner: AccountAddress, hash: Uint8Array): Promise<Uint8Array>
  /** The same ECDSA signature with its recovery id (BIP-137). Call only from `execute`. */
  signEcdsaRecoverable(
    owner: AccountAddress,
    hash: Uint8Array,
  ): Promise<{ signature: Uint8Array; recoveryId: 0 | 1 | 2 | 3 }>
  /** BIP-86 key-path Schnorr signature (64 bytes) with the key of `owner`. Call only from `execute`. */
  signTaproot(owner: AccountAddress, hash: Uint8Array, auxRand?: Uint8Array): Promise<Uint8Array>
}

/** Per-chain state a method reaches through `Bip122Wallet.chain(chainId)`. */
export type ChainState = {
  chain: Bip122Chain
  provider: ChainProvider | undefined
  /** What outputs carry (inscriptions, runes, rare sats), when the wallet configured a source. */
  assets: OutputAssetsProvider | undefined
  account: Account
}

/** What every bip122 method factory receives (built once by `bip122(...)`). */
export type Bip122Wallet = {
  /** The chain's state (its account is derived on first use); rejects with 5100 for a chain not served. */
  chain(chainId: string): Promise<ChainState>
  /**
   * Resolves a request's `account` param leniently: the account id or any address of the account names it.
   * Throws InvalidParamsError (-32602) for an address of another network, UnauthorizedError (4100) otherwise.
   */
  resolveAccount(chainId: string, account: string): Promise<Account>
  /** Call after every successful broadcast: refreshes the account's addresses and emits `bip122_addressesChanged`. */
  afterBroadcast(chainId: string, txid: string): void
  /** Signing and sending policy (fee caps, PSBT limits, UTXO reservations); defaults when absent. */
  readonly policy?: Bip122Policy
}
