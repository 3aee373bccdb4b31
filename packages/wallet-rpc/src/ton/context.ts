import { equalBytes } from '@noble/curves/utils.js'
import { InternalError, MethodNotSupportedError } from '../core/errors.js'
import { withKeyTimeout } from '../core/timeout.js'
import { ed25519 } from '../crypto/ed25519.js'
import { type TonWalletOptions, type WalletContract, walletContract } from './contracts.js'
import { isTrustedSigner, type TonSigner } from './keys.js'
import type { TonChainProvider } from './provider.js'

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

/** TON Connect WalletKit and Tonkeeper both cap a message's lifetime at ten minutes. */
export const maxValidFor = 600

type TonWalletConfig = {
  keys: TonSigner | Promise<TonSigner>
  wallet: TonWalletOptions
  workchain: number
  providers: Readonly<Record<string, TonChainProvider | undefined>>
  defaultValidFor: number
}

function assertSigner(signer: TonSigner): void {
  if (typeof signer !== 'object' || signer === null || typeof signer.sign !== 'function') {
    throw new TypeError('ton keys must be { publicKey, sign(bytes) }')
  }
  const publicKey = signer.publicKey
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new TypeError('ton signer publicKey must be a 32-byte Uint8Array')
  }
}

export function createTonWallet(config: TonWalletConfig): TonWallet {
  let resolved: { signer: TonSigner; contract: WalletContract } | undefined
  const ready = Promise.resolve(config.keys).then((signer) => {
    assertSigner(signer)
    resolved = { signer, contract: walletContract(signer.publicKey, config.wallet, config.workchain) }
    return resolved
  })
  // Surfaced on first use; without this a bad key source would also be an unhandled rejection.
  ready.catch(() => {})

  function checked(signature: unknown): Uint8Array {
    if (!(signature instanceof Uint8Array) || signature.length !== 64) {
      throw new InternalError({ details: 'ton signer returned something other than 64 signature bytes' })
    }
    return signature
  }

  async function signExternally(signer: TonSigner, contract: WalletContract, message: Uint8Array) {
    const signature = checked(await withKeyTimeout(Promise.resolve(signer.sign(message)), signer.timeoutMs))
    // An external signer's answer is checked, so a broken device or a swapped key never reaches the
    // chain or the dapp. Our own keys are deterministic Ed25519 already proven against tweetnacl.
    const backend = ed25519()
    if (
      !equalBytes(signer.publicKey, contract.publicKey) ||
      !backend.verify(contract.publicKey, message, signature)
    ) {
      throw new InternalError({ details: 'ton signer returned a signature that does not verify' })
    }
    return signature
  }

  return {
    defaultValidFor: config.defaultValidFor,

    async contract() {
      return (await ready).contract
    },

    readyContract() {
      return resolved?.contract
    },

    sign(message) {
      if (resolved === undefined)
        return ready.then(({ signer, contract }) => signExternally(signer, contract, message))
      const { signer, contract } = resolved
      if (!isTrustedSigner(signer)) return signExternally(signer, contract, message)
      const signature = signer.sign(message)
      // Synchronous where the backend is (node:crypto, @noble/curves); WebCrypto answers with a promise.
      return signature instanceof Uint8Array ? checked(signature) : signature.then(checked)
    },

    provider(chainId, method) {
      const provider = config.providers[chainId]
      if (provider === undefined) {
        throw new MethodNotSupportedError(method, {
          data: { method, reason: `no chain provider is configured for ${chainId}` },
        })
      }
      return provider
    },
  }
}
