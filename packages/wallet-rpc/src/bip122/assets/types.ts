/**
 * What an output carries besides bitcoin, as an index (an ord server, a wallet's own indexer) reports it.
 * The library never guesses: a field a source does not know is `undefined`, which means unknown, never empty.
 */

/** An inscription (an ordinals NFT) sitting on one sat of an output. */
export type OutputInscription = {
  /** `<txid>i<index>`. */
  id: string
  /**
   * Offset of the inscribed sat within the output (ord's satpoint `txid:vout:offset`), when the source knows it.
   * Only asked for with `details: true`; without it, where the inscription goes is judged for the whole output.
   */
  offset?: number | undefined
}

/** A balance of one rune on an output. */
export type OutputRune = {
  /** The spaced rune name as ord writes it, e.g. `UNCOMMON•GOODS`. */
  rune: string
  /** Base units (a u128: ord's JSON number can exceed 2^53, so it is read exactly). */
  amount: bigint
  /** Decimal places for display (0–38). */
  divisibility: number
  /** One character shown after amounts, when the rune has one. */
  symbol?: string | undefined
  /**
   * The rune id `BLOCK:TX`, which a runestone's edicts name runes by. Only asked for with `details: true`;
   * without it a runestone's edicts cannot be matched to this balance.
   */
  id?: string | undefined
}

/** One output's contents. */
export type OutputAssets = {
  /**
   * False when the index has not processed this output (unconfirmed, or the index is behind the chain): it
   * then answers as if the output were empty, but its contents are unknown.
   */
  indexed: boolean
  /** The output's value in satoshis as the index knows it; checked against the wallet's own. */
  value?: number | undefined
  /** True when the index reports the output already spent. */
  spent?: boolean | undefined
  /** `undefined`: this source does not track inscriptions. */
  inscriptions: readonly OutputInscription[] | undefined
  /** `undefined`: this source does not track runes (ord without `--index-runes`). */
  runes: readonly OutputRune[] | undefined
  /**
   * The output's sats in order as `[start, end)` sat-number ranges (ord `--index-sats`); `undefined`: not
   * tracked, so rare sats are not checked. Rarity follows from the sat numbers (`assets/rarity.ts`).
   */
  satRanges: readonly (readonly [number, number])[] | undefined
}

export type OutputAssetsOptions = {
  /** Also find each inscription's offset and each rune's id (more requests; signPsbt asks, sendTransfer does not). */
  details?: boolean
}

/**
 * The source of `OutputAssets` a bip122 chain uses (chain option `assets`). `ordServer(url)` speaks ord's JSON
 * API; a wallet with its own indexer implements this interface instead.
 *
 * `outputs` answers what it can: an outpoint missing from the map is unknown (the source had no answer for
 * it), and so is every outpoint when it rejects. It is asked for at most a few thousand outpoints per request
 * and should bound its own time (a timeout per HTTP request, a deadline per call).
 */
export type OutputAssetsProvider = {
  /** Shown in reviews as the source of what they say about assets, e.g. `ord server ord.example.com`. */
  readonly name: string
  /** Outpoints are `txid:vout` (display txid, lower-case hex). */
  outputs(
    outpoints: readonly string[],
    options?: OutputAssetsOptions,
  ): Promise<ReadonlyMap<string, OutputAssets>>
}
