import { equalBytes } from '@noble/curves/utils.js'
import { InternalError, MethodNotSupportedError } from '../core/errors.js'
import { withKeyTimeout } from '../core/timeout.js'
import { ed25519 } from '../crypto/ed25519.js'
import { walletContract } from './contracts.js'
import { isTrustedSigner } from './keys.js'
import type { TonChainProvider, TonSigner, TonWallet, TonWalletOptions, WalletContract } from './types.js'

export type { TonWallet } from './types.js'

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
