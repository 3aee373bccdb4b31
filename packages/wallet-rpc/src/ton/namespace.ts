import { InvalidParamsError } from '../core/errors.js'
import { assertPlatformGlobals } from '../core/globals.js'
import type { Namespace, RequestContext } from '../core/namespace.js'
import { ed25519 } from '../crypto/ed25519.js'
import { activeSha256 } from '../crypto/sha256.js'
import { addressKey } from './address.js'
import { type TonChainId, tonChains } from './chains.js'
import { createTonWallet, maxValidFor } from './context.js'
import type { TonWalletOptions, TonWalletVersion } from './contracts.js'
import type { TonSigner } from './keys.js'
import { ton_proof } from './methods/ton_proof.js'
import { defaultEmulationTimeoutMs, ton_sendMessage } from './methods/ton_sendMessage.js'
import { ton_signData } from './methods/ton_signData.js'
import { assertBufferGlobal } from './tonCore.js'
import type { TonChainProvider } from './types.js'

export type TonNamespaceOptions = {
  /** `await tonKeys.fromMnemonic(words)`, `tonKeys.fromSecretKey(key)`, or an external `{ publicKey, sign }`. */
  keys: TonSigner | Promise<TonSigner>
  /** `'v5r1'` (default) or `'v4r2'`, or the options object with a wallet id. */
  wallet?: TonWalletVersion | TonWalletOptions
  /** 0 (basechain, default) or -1 (masterchain). */
  workchain?: 0 | -1
  /** Chains this wallet serves; default both `ton:-239` and `ton:-3`, with the same wallet (see `TonWalletOptions`). */
  chains?: readonly TonChainId[]
  /** Chain provider per chain; `ton_sendMessage` answers 5101 on a chain without one. */
  providers?: Partial<Record<TonChainId, TonChainProvider>>
  /** Seconds a message stays valid when the dapp gives no `valid_until`: default 300, at most 600. */
  defaultValidFor?: number
  /**
   * Opt-in compatibility, off by default. Answer `ton_sendMessage` as `{ boc }` instead of the spec's plain
   * base64 string when this returns true for the request (its `origin` names the dapp, so a wallet switches it
   * per dapp or session). For dapps on @reown/appkit-adapter-ton (1.8.15 reads `result?.boc || result?.result
   * || ''`, so the spec's answer reaches the app as ''). Nothing signed or sent changes, only the answer's shape.
   */
  sendMessageResultAsObject?: (context: RequestContext) => boolean
  /**
   * `ton_sendMessage` reviews show the balance changes the chain provider's emulator sees (`emulate`). A
   * request it could not simulate is a `caution` (`ton.emulation_unavailable`); with `true`, a `danger`, which
   * the wallet's policy refuses unless `allowDangerous` lists it. Default false.
   */
  requireEmulation?: boolean
  /** How long a review waits for the emulator, whatever the provider's own timeout: default 10 s, 1 to 60 s. */
  emulationTimeoutMs?: number
}

/**
 * The `ton` namespace: `ton_sendMessage` and `ton_signData` for a v4R2 or v5R1 wallet, with the
 * `ton_getPublicKey` / `ton_getStateInit` session properties @tonconnect/sdk requires.
 */
export function ton(options: TonNamespaceOptions): Namespace {
  assertBufferGlobal()
  assertPlatformGlobals()
  // The backends are chosen when the namespace is created (never at import), so `wallet.backends()` names them.
  ed25519()
  activeSha256()
  const chains = [...(options.chains ?? tonChains)]
  for (const chainId of chains) {
    if (!(tonChains as readonly string[]).includes(chainId))
      throw new TypeError(`unknown ton chain ${chainId}`)
  }
  const defaultValidFor = options.defaultValidFor ?? 300
  if (!Number.isInteger(defaultValidFor) || defaultValidFor < 10 || defaultValidFor > maxValidFor) {
    throw new RangeError(`defaultValidFor must be 10..${maxValidFor} seconds`)
  }
  const emulationTimeoutMs = options.emulationTimeoutMs ?? defaultEmulationTimeoutMs
  if (!Number.isInteger(emulationTimeoutMs) || emulationTimeoutMs < 1000 || emulationTimeoutMs > 60_000) {
    throw new RangeError('emulationTimeoutMs must be 1000..60000 milliseconds')
  }
  const wallet = createTonWallet({
    keys: options.keys,
    wallet:
      typeof options.wallet === 'string'
        ? { version: options.wallet }
        : (options.wallet ?? { version: 'v5r1' }),
    workchain: options.workchain ?? 0,
    providers: options.providers ?? {},
    defaultValidFor,
  })

  return {
    name: 'ton',
    chains,
    methods: {
      ton_sendMessage: ton_sendMessage(wallet, {
        ...(options.sendMessageResultAsObject ? { resultAsObject: options.sendMessageResultAsObject } : {}),
        requireEmulation: options.requireEmulation === true,
        emulationTimeoutMs,
      }),
      ton_signData: ton_signData(wallet),
      ton_proof: ton_proof(wallet),
    },
    // User-friendly, non-bounceable (the wallet's own form; test flag on ton:-3). Not the raw `0:<hex>`:
    // its colon makes `ton:-239:0:<hex>` an invalid CAIP-10 id, which WalletConnect's approveSession refuses.
    // @tonconnect/sdk converts friendly accounts to raw on its side.
    async accounts(chainId) {
      return [(await wallet.contract()).account(chainId)]
    },
    addressKey,
    // @tonconnect/sdk's WalletConnect provider ignores the code and reads the category from the message:
    // "TonValidationError" → 1 (bad request), "reject" → 300 (our 5000 "User rejected." already says so).
    describeError(error) {
      if (error.code !== InvalidParamsError.code) return error
      const reason = (error.data as { reason?: unknown } | undefined)?.reason
      return {
        ...error,
        message: `TonValidationError: ${typeof reason === 'string' ? reason : error.message}`,
      }
    },
    async sessionProperties() {
      const contract = await wallet.contract()
      return { ton_getPublicKey: contract.publicKeyHex, ton_getStateInit: contract.stateInitBoc }
    },
  }
}
