import { bytesToHex } from '@noble/curves/utils.js'
import { Address, beginCell, Cell, storeMessage, type Transaction } from '@ton/core'
import type { Blockchain, SendMessageResult } from '@ton/sandbox'
import type { Clock } from 'wallet-rpc'
import { ProviderError } from 'wallet-rpc'
import type {
  TonChainProvider,
  TonEmulationFailure,
  TonEmulationRequest,
  TonEmulationResult,
  TonJettonChange,
} from 'wallet-rpc/ton'
import { emulationFailure, normalizedMessageHash } from 'wallet-rpc/ton'
import { deployJetton, type JettonMetadata, onchainField, type SandboxJetton } from './tonJetton.js'

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
  /** Deploys a TEP-74 jetton (the standard minter and wallet) whose admin is the treasury. */
  deployJetton(metadata: JettonMetadata): Promise<SandboxJetton>
  /** Nothing runs in the background; this drops the references. */
  stop(): Promise<void>
}

export type StartTonSandboxOptions = {
  /** The chain's clock (ms since the epoch); read before every chain operation. Default: real time. */
  clock?: Clock
}

/** The most transactions one emulation runs before it gives up. */
const maxEmulatedTransactions = 256

/** A transaction's account: the sandbox's accounts are on the basechain, named by their hash. */
const accountOf = (hash: bigint) => new Address(0, Buffer.from(hash.toString(16).padStart(64, '0'), 'hex'))

/** A transaction in the terms of wallet-rpc's failure rule (`emulationFailure`). */
function summary(transaction: Transaction) {
  const account = accountOf(transaction.address)
  const description = transaction.description
  const generic = description.type === 'generic' ? description : undefined
  const compute = generic?.computePhase
  const action = generic?.actionPhase
  const inMessage = transaction.inMessage
  const internal = inMessage?.info.type === 'internal'
  const body = inMessage?.body.beginParse()
  return {
    account: account.toRawString(),
    aborted: generic?.aborted === true,
    computeSkipped: compute?.type === 'skipped',
    computeSkipReason: compute?.type === 'skipped' ? compute.reason : undefined,
    computeSuccess: compute?.type === 'vm' ? compute.success : undefined,
    exitCode: compute?.type === 'vm' ? compute.exitCode : undefined,
    actionSuccess: action?.success,
    actionResultCode: action?.resultCode,
    skippedActions: action?.skippedActions ?? 0,
    inOpcode: internal && body !== undefined && body.remainingBits >= 32 ? body.loadUint(32) : undefined,
    inBounce: internal && inMessage?.info.type === 'internal' && inMessage.info.bounce,
    bounced: generic?.bouncePhase?.type === 'ok',
  }
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

  // One chain operation at a time: an emulation runs on the chain's state and then restores it, and nothing
  // else may read or change that state meanwhile.
  let queue: Promise<unknown> = Promise.resolve()
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work)
    queue = next.catch(() => {})
    return next
  }

  const provider: TonChainProvider = {
    getAccount: (address) =>
      exclusive(async () => {
        sync()
        const contract = await blockchain.getContract(Address.parse(address))
        const type = contract.accountState?.type
        return { state: type ?? 'nonexist', balance: contract.balance }
      }),

    getSeqno: (address) =>
      exclusive(async () => {
        sync()
        const result = await blockchain.runGetMethod(Address.parse(address), 'seqno')
        if (result.exitCode !== 0) throw new ProviderError(`seqno get-method exited with ${result.exitCode}`)
        return result.stackReader.readNumber()
      }),

    sendBoc: (boc) =>
      exclusive(async () => {
        sync()
        const cells = Cell.fromBoc(Buffer.from(boc))
        if (cells.length !== 1) throw new ProviderError('a BoC with one root is expected')
        let result: SendMessageResult
        try {
          result = await blockchain.sendMessage(cells[0]!)
        } catch (error) {
          throw accepted(error)
        }
        sent.push(result)
        const inMessage = result.transactions[0]?.inMessage
        if (!inMessage) return {}
        return {
          hash: bytesToHex(normalizedMessageHash(beginCell().store(storeMessage(inMessage)).endCell())),
        }
      }),

    emulate: (request) => exclusive(() => emulate(request)),
  }

  function accepted(error: unknown): unknown {
    if (!(error instanceof EmulationError)) return error
    return new ProviderError(`external message not accepted by the contract, exit code ${error.exitCode}`, {
      cause: error,
    })
  }

  /**
   * Runs the unsigned message with `ignoreChksig` on a snapshot of the chain, reads what changed for the wallet
   * (its TON balance, the jetton wallets it owns among the accounts the trace touched), then restores the
   * snapshot: the chain is as it was. NFTs are not read here.
   */
  async function emulate(request: TonEmulationRequest): Promise<TonEmulationResult> {
    sync()
    const wallet = Address.parseRaw(request.wallet.rawAddress)
    const message = Cell.fromBoc(Buffer.from(request.unsignedBoc))[0]!
    const snapshot = blockchain.snapshot()
    const tonBefore = (await blockchain.getContract(wallet)).balance
    const transactions: Transaction[] = []
    let tonAfter: bigint
    let jettonsAfter: Map<string, { master: Address; balance: bigint }>
    try {
      const trace = await blockchain.sendMessageIter(message, { ignoreChksig: true })
      for await (const transaction of trace) {
        if (request.signal.aborted) throw request.signal.reason
        transactions.push(transaction)
        if (transactions.length > maxEmulatedTransactions) {
          throw new ProviderError(`the trace holds more than ${maxEmulatedTransactions} transactions`)
        }
      }
      tonAfter = (await blockchain.getContract(wallet)).balance
      jettonsAfter = await ownedJettons(
        transactions.map((transaction) => accountOf(transaction.address)),
        wallet,
      )
    } catch (error) {
      throw accepted(error)
    } finally {
      await blockchain.loadFrom(snapshot)
    }
    const jettons: TonJettonChange[] = []
    for (const [key, { master, balance }] of jettonsAfter) {
      const before = (await ownedJettons([Address.parseRaw(key)], wallet)).get(key)?.balance ?? 0n
      if (balance === before) continue
      jettons.push({
        master: master.toRawString(),
        amount: balance - before,
        ...(await jettonMetadata(master)),
      })
    }
    const failures: TonEmulationFailure[] = []
    for (const transaction of transactions) {
      const failure = emulationFailure(summary(transaction))
      if (failure !== undefined) failures.push(failure)
    }
    return { emulator: '@ton/sandbox', ton: tonAfter - tonBefore, jettons, nfts: [], failures }
  }

  /** The jetton wallets among `accounts` that `owner` owns, by raw address, with their balances. */
  async function ownedJettons(accounts: Address[], owner: Address) {
    const found = new Map<string, { master: Address; balance: bigint }>()
    const unique = new Map(accounts.map((address) => [address.toRawString(), address]))
    for (const address of unique.values()) {
      if ((await blockchain.getContract(address)).accountState?.type !== 'active') continue
      try {
        const data = await blockchain.runGetMethod(address, 'get_wallet_data')
        if (data.exitCode !== 0) continue
        const balance = data.stackReader.readBigNumber()
        if (!data.stackReader.readAddress().equals(owner)) continue
        found.set(address.toRawString(), { master: data.stackReader.readAddress(), balance })
      } catch {
        // Not a jetton wallet.
      }
    }
    return found
  }

  async function jettonMetadata(master: Address): Promise<Pick<TonJettonChange, 'symbol' | 'decimals'>> {
    try {
      const data = (await blockchain.runGetMethod(master, 'get_jetton_data')).stackReader
      data.skip(3) // total_supply, mintable, admin
      const content = data.readCell()
      const decimals = Number(onchainField(content, 'decimals') ?? Number.NaN)
      return {
        symbol: onchainField(content, 'symbol'),
        decimals: Number.isInteger(decimals) && decimals >= 0 && decimals <= 255 ? decimals : undefined,
      }
    } catch {
      return { symbol: undefined, decimals: undefined }
    }
  }

  return {
    provider,
    blockchain,
    sent,
    fund: (address, nanotons) =>
      exclusive(async () => {
        sync()
        const to = typeof address === 'string' ? Address.parse(address) : address
        await treasury.send({ to, value: nanotons, bounce: false })
      }),
    deployJetton: (metadata) =>
      exclusive(async () => {
        sync()
        const jetton = await deployJetton(blockchain, treasury, metadata)
        return {
          ...jetton,
          mint: (owner, amount) =>
            exclusive(async () => {
              sync()
              await jetton.mint(owner, amount)
            }),
          walletOf: (owner) => exclusive(() => jetton.walletOf(owner)),
          balanceOf: (owner) => exclusive(() => jetton.balanceOf(owner)),
        }
      }),
    async stop() {
      sent.length = 0
    },
  }
}
