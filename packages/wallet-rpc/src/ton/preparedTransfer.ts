import { bytesToHex } from '@noble/curves/utils.js'
import type { Destination } from './address.js'
import { type FastCell, toCoreCell } from './cells.js'
import { normalizedMessageHash, type TransferRequest, type WalletContract } from './contracts.js'
import { internal, type StateInit } from './tonCore.js'
import { fastExternalMessage, fastUnsignedTransfer } from './transfer.js'

/** One of `ton_sendMessage`'s messages, parsed. */
export type PlannedMessage = {
  destination: Destination
  amount: bigint
  body: FastCell | undefined
  init: StateInit | undefined
}

/** The external message once its signature is in place, and its two hashes (cell hash, TEP-467 normalized). */
export type SealedTransfer = { boc: Uint8Array; hashes: () => string[] }

/** A transfer ready to sign: the digest the key signs, and the external message around any signature. */
export type PreparedTransfer = {
  digest: Uint8Array
  seal(signature: Uint8Array): SealedTransfer
}

/**
 * `ton_sendMessage`'s transfer before it is signed: through FastCells (transfer.ts) where they cover the
 * request, else through @ton/core, the same bytes either way. Sealed with the key's signature it is what the
 * wallet sends; sealed with 64 zero bytes it is what an emulator may be shown.
 */
export function prepareTransfer(
  contract: WalletContract,
  header: Omit<TransferRequest, 'messages'>,
  messages: readonly PlannedMessage[],
  includeInit: boolean,
): PreparedTransfer {
  const fast =
    includeInit || messages.some((message) => message.init !== undefined)
      ? undefined
      : fastUnsignedTransfer(contract, {
          ...header,
          messages: messages.map(({ destination, amount, body }) => ({
            to: destination.address,
            value: amount,
            bounce: destination.bounceable,
            body,
          })),
        })
  if (fast !== undefined) {
    return {
      digest: fast.hash,
      seal(signature) {
        const message = fastExternalMessage(contract, fast, signature)
        return {
          boc: message.boc,
          hashes: () => [bytesToHex(message.hash), bytesToHex(message.normalizedHash())],
        }
      },
    }
  }
  // No payload means no body: nothing is invented (react-wallet-v2 added a comment of its own).
  const relaxed = messages.map(({ destination, amount, body, init }) =>
    internal({
      to: destination.address,
      value: amount,
      bounce: destination.bounceable,
      ...(body === undefined ? {} : { body: toCoreCell(body) }),
      ...(init === undefined ? {} : { init }),
    }),
  )
  const unsigned = contract.unsignedTransfer({ ...header, messages: relaxed })
  return {
    digest: new Uint8Array(unsigned.hash()),
    seal(signature) {
      const message = contract.externalMessage(contract.signedTransfer(unsigned, signature), includeInit)
      return {
        boc: new Uint8Array(message.toBoc()),
        hashes: () => [bytesToHex(message.hash()), bytesToHex(normalizedMessageHash(message))],
      }
    },
  }
}
