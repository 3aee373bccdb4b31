import { bytesToHex } from '@noble/curves/utils.js'
import { Address, beginCell, Cell, storeMessage } from '@ton/core'
import type { Blockchain, SendMessageResult } from '@ton/sandbox'
import type { Clock } from 'wallet-rpc'
import { ProviderError } from 'wallet-rpc'
import type { TonChainProvider } from 'wallet-rpc/ton'
import { normalizedMessageHash } from 'wallet-rpc/ton'

/** An in-process TON chain: the @ton/sandbox emulator (WASM shipped inside the npm package, fully offline). */
export type TonSandbox = {
  /** The chain behind the namespace's provider interface. */
  provider: TonChainProvider
  /** Sends `nanotons` from a treasury to `address` (raw or friendly) as a non-bounceable transfer. */
  fund(address: string | Address, nanotons: bigint): Promise<void>
  /** The emulator itself, for assertions (`getContract`, `runGetMethod`, `sendMessage`). */
  blockchain: Blockchain
  /** Every external message the provider accepted, with the transactions it caused, in order. */
  sent: SendMessageResult[]
  /** Nothing runs in the background; this drops the references. */
  stop(): Promise<void>
}

export type StartTonSandboxOptions = {
  /** The chain's clock (ms since the epoch); read before every chain operation. Default: real time. */
  clock?: Clock
}

/**
 * Starts a sandbox chain. `@ton/sandbox` is a dev dependency, loaded here on demand so the library itself
 * never needs it.
 */
export async function startTonSandbox(options: StartTonSandboxOptions = {}): Promise<TonSandbox> {
  const { Blockchain, EmulationError } = await import('@ton/sandbox')
  const blockchain = await Blockchain.create()
  const sync = () => {
    if (options.clock) blockchain.now = Math.floor(options.clock() / 1000)
  }
  sync()
  const treasury = await blockchain.treasury('wallet-rpc')
  const sent: SendMessageResult[] = []

  const provider: TonChainProvider = {
    async getAccount(address) {
      sync()
      const contract = await blockchain.getContract(Address.parse(address))
      const type = contract.accountState?.type
      return { state: type ?? 'nonexist', balance: contract.balance }
    },

    async getSeqno(address) {
      sync()
      const result = await blockchain.runGetMethod(Address.parse(address), 'seqno')
      if (result.exitCode !== 0) throw new ProviderError(`seqno get-method exited with ${result.exitCode}`)
      return result.stackReader.readNumber()
    },

    async sendBoc(boc) {
      sync()
      const cells = Cell.fromBoc(Buffer.from(boc))
      if (cells.length !== 1) throw new ProviderError('a BoC with one root is expected')
      let result: SendMessageResult
      try {
        result = await blockchain.sendMessage(cells[0]!)
      } catch (error) {
        if (error instanceof EmulationError) {
          throw new ProviderError(
            `external message not accepted by the contract, exit code ${error.exitCode}`,
            {
              cause: error,
            },
          )
        }
        throw error
      }
      sent.push(result)
      const inMessage = result.transactions[0]?.inMessage
      if (!inMessage) return {}
      return { hash: bytesToHex(normalizedMessageHash(beginCell().store(storeMessage(inMessage)).endCell())) }
    },
  }

  return {
    provider,
    blockchain,
    sent,
    async fund(address, nanotons) {
      sync()
      const to = typeof address === 'string' ? Address.parse(address) : address
      await treasury.send({ to, value: nanotons, bounce: false })
    },
    async stop() {
      sent.length = 0
    },
  }
}
