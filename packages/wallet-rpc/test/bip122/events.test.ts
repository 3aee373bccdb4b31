import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAccount } from '../../src/bip122/account.js'
import { BIP122_MAINNET, BIP122_REGTEST, bip122Chains } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import type { AddressEntry, ChainProvider, Utxo } from '../../src/bip122/types.js'
import type { WalletEvent } from '../../src/core/events.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'

const keys = hdKeys({
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
})
const regtest = bip122Chains[BIP122_REGTEST]!
const model = await createAccount({ keys, chain: regtest, provider: undefined, clock: () => 0 })
const at = async (purpose: 84 | 86, change: 0 | 1, index: number) =>
  (await model.address(purpose, change, index)).address
const txid = (n: number) => n.toString(16).padStart(64, '0')

/** An in-memory chain: address → UTXOs, with history kept when they are spent. */
function memoryChain() {
  const utxos = new Map<string, Utxo[]>()
  const history = new Map<string, number>()
  const provider: ChainProvider = {
    utxos: async (address) => utxos.get(address) ?? [],
    addressActivity: async (address) => ({ txCount: history.get(address) ?? 0 }),
    feeRates: async () => ({ '1': 1 }),
    rawTransaction: async () => new Uint8Array(),
    broadcast: async () => txid(0),
  }
  return {
    provider,
    fund(address: string, n: number) {
      utxos.set(address, [
        ...(utxos.get(address) ?? []),
        { txid: txid(n), vout: 0, value: 1000, confirmed: true },
      ])
      history.set(address, (history.get(address) ?? 0) + 1)
    },
  }
}

function setup(watch?: { intervalMs: number }) {
  const chain = memoryChain()
  const namespace = bip122({
    keys,
    chains: { [BIP122_REGTEST]: { provider: chain.provider }, [BIP122_MAINNET]: {} },
    ...(watch ? { watch } : {}),
  })
  const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
  const events: WalletEvent[] = []
  const waiters: Array<() => void> = []
  wallet.on('event', (event) => {
    events.push(event)
    waiters.shift()?.()
  })
  const nextEvent = () => new Promise<void>((resolve) => waiters.push(resolve))
  return { chain, namespace, wallet, events, nextEvent }
}

const addressesOf = (event: WalletEvent | undefined) =>
  ((event?.data ?? []) as AddressEntry[]).map((entry) => entry.address)

afterEach(() => {
  vi.useRealTimers()
})

describe('bip122_addressesChanged', () => {
  it('is emitted once when a session is announced, with the getAccountAddresses data of that chain', async () => {
    const { wallet, events } = setup()
    await wallet.announceSession([BIP122_REGTEST, BIP122_MAINNET])
    expect(events.map((event) => [event.name, event.chainId])).toEqual([
      ['bip122_addressesChanged', BIP122_REGTEST],
      ['bip122_addressesChanged', BIP122_MAINNET],
    ])
    const listed = await wallet.handle({
      chainId: BIP122_REGTEST,
      request: { id: 1, method: 'getAccountAddresses', params: { account: await at(84, 0, 0) } },
    })
    expect(events[0]!.data).toEqual((listed as { result: unknown }).result)
    await wallet.close()
  })

  it('is emitted after a successful broadcast, with the refreshed addresses', async () => {
    const { chain, namespace, wallet, events, nextEvent } = setup()
    await wallet.announceSession([BIP122_REGTEST])
    const change = await at(84, 1, 0)
    chain.fund(change, 1)
    const emitted = nextEvent()
    namespace.wallet.afterBroadcast(BIP122_REGTEST, txid(1))
    await emitted
    expect(events).toHaveLength(2)
    expect(addressesOf(events[1])).toContain(change)
    // The next unused change address moved past the one just used.
    expect(addressesOf(events[1])).toContain(await at(84, 1, 2))
    await wallet.close()
  })

  it('after a broadcast, reads the chain afresh instead of joining a read begun before it', async () => {
    // A chain whose answers are taken when asked and delivered when the gate opens.
    const chain = memoryChain()
    let open = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    let asked = 0
    const gated: ChainProvider = {
      ...chain.provider,
      addressActivity: async (address) => {
        asked++
        const answer = await chain.provider.addressActivity(address)
        await gate
        return answer
      },
    }
    const account = await createAccount({ keys, chain: regtest, provider: gated, clock: () => 0 })
    const earlier = account.discovery()
    await vi.waitFor(() => expect(asked).toBeGreaterThan(0))
    // The broadcast lands while that read is under way (its first answers were taken before it).
    const funded = await at(84, 0, 0)
    chain.fund(funded, 5)
    const refreshed = account.refresh()
    open()
    expect((await earlier).utxos.map((utxo) => utxo.owner.address)).not.toContain(funded)
    await refreshed
    expect((await account.discovery()).utxos.map((utxo) => utxo.owner.address)).toContain(funded)
  })

  it('is emitted by the watcher when the UTXO set changes, and not when it does not', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { chain, wallet, events, nextEvent } = setup({ intervalMs: 60_000 })
    await wallet.announceSession([BIP122_REGTEST])
    expect(events).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(1)

    // A tick with nothing new: no event, and the watcher re-arms.
    await vi.advanceTimersToNextTimerAsync()
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1))
    expect(events).toHaveLength(1)

    const receive = await at(86, 0, 4)
    chain.fund(receive, 2)
    const emitted = nextEvent()
    await vi.advanceTimersToNextTimerAsync()
    await emitted
    expect(events).toHaveLength(2)
    expect(addressesOf(events[1])).toContain(receive)

    await wallet.close()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('checkForChanges reports whether the UTXO set changed (what the watcher runs)', async () => {
    const { chain, namespace, wallet, events } = setup()
    await wallet.announceSession([BIP122_REGTEST])
    expect(await namespace.checkForChanges(BIP122_REGTEST)).toBe(false)
    chain.fund(await at(84, 0, 3), 3)
    expect(await namespace.checkForChanges(BIP122_REGTEST)).toBe(true)
    expect(events).toHaveLength(2)
    await wallet.close()
  })

  it('does not watch without a provider or without `watch`, and emits nothing after close', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { namespace, wallet, events } = setup()
    await wallet.announceSession([BIP122_REGTEST, BIP122_MAINNET])
    expect(vi.getTimerCount()).toBe(0)
    await wallet.close()
    namespace.wallet.afterBroadcast(BIP122_REGTEST, txid(9))
    await namespace.close!()
    expect(events).toHaveLength(2)
  })
})
