import { promises as fsPromises, writeSync } from 'node:fs'
import { WalletKit } from '@reown/walletkit'
import { Core } from '@walletconnect/core'
import type { ICore } from '@walletconnect/types'
import { BIP122_REGTEST, bip122, esplora, hdKeys } from '../../src/bip122/index.js'
import type { Namespace } from '../../src/core/namespace.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import { ton, toncenter, tonKeys } from '../../src/ton/index.js'
import { attachWalletKit } from '../../src/walletkit/index.js'

/**
 * The wallet of exactlyOnce.e2e.test.ts, in a process of its own so the test can kill it at an exact point and
 * start it again on the same files, as a user's wallet app dies and is reopened: the real WalletKit on its
 * persistent Node storage (a directory), `createWalletRpc` + `attachWalletKit` with default options (so the
 * request journal lives in WalletKit's `core.storage`). Not a test file: the test runs it with `node --import tsx`.
 *
 * Environment:
 * - `WALLET_DIR`: WalletKit's storage directory (keys, session, pending requests, the journal); `RELAY_URL`.
 * - `ANVIL_URL` + `ANVIL_CHAIN_ID`, `ESPLORA_URL`, `TONCENTER_URL`: the chains (each optional).
 * - `PAIRING_URI`: pair with this dapp and approve its session (first start only).
 * - `CRASH`: where this start dies, at the first broadcast of any chain:
 *   `after-broadcast` (SIGKILL once the chain accepted it), `before-broadcast` (SIGKILL just before it is sent,
 *   so after the journal's signed record was written), `respond-fails` (`respondSessionRequest` throws once, as
 *   with the relay offline; the wallet then exits cleanly).
 *
 * Reports one JSON object a line on stdout: `ready`, `session`, `request` (each delivery of a request),
 * `approve` (each prompt), `broadcast` (each call to a chain's broadcast, with the bytes), `crash` (the journal's
 * records at that moment), `respond`, `error`. SIGTERM stops it cleanly.
 */

const devMnemonic = 'test test test test test test test test test test test junk'
const bitcoinMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
/** ton-connect/kit WalletV5R1.fixture.ts key, as test/ton/fixtures.ts. */
const tonSeedHex = '9d659a6c2234db7f6e4f977e6e8653b9f5946d557163f31034011375d8f3f97d'
const TON_TESTNET = 'ton:-3'

const env = process.env
const crash = env.CRASH
if (
  crash !== undefined &&
  !['after-broadcast', 'before-broadcast', 'respond-fails', 'answer-write', 'answer-torn'].includes(crash)
)
  throw new Error(`unknown CRASH ${crash}`)

/** Synchronous, so a line written just before SIGKILL is not lost in a stream buffer. */
function report(line: Record<string, unknown>): void {
  writeSync(1, `${JSON.stringify(line)}\n`)
}

// WalletConnect's Node storage (unstorage fs-lite) writes a value by unlinking its file, then writing it anew:
// `answer-write` dies right before the journal's answer is written (the signed record, under its own key, stays).
// `answer-torn` dies with the answer's file created but empty, as a crash inside writeFile leaves it.
if (crash === 'answer-write' || crash === 'answer-torn') {
  const writeFile = fsPromises.writeFile
  fsPromises.writeFile = (async (path: string, data: string, ...rest: unknown[]) => {
    if (String(path).includes('/wallet-rpc/journal/') && String(data).includes('"answered"')) {
      if (crash === 'answer-torn') await (writeFile as (...args: unknown[]) => Promise<void>)(path, '')
      report({ event: 'crash', point: crash, path: String(path) })
      process.kill(process.pid, 'SIGKILL')
      await new Promise(() => {})
    }
    return (writeFile as (...args: unknown[]) => Promise<void>)(path, data, ...rest)
  }) as typeof fsPromises.writeFile
}

const core = new Core({
  projectId: 'local-test',
  relayUrl: required('RELAY_URL'),
  storageOptions: { database: required('WALLET_DIR') },
  customStoragePrefix: 'exactly-once-wallet',
  telemetryEnabled: false,
  logger: 'silent',
}) as unknown as ICore

/**
 * Every chain's broadcast goes through here: reported, and the crash point armed for this start. The journal's
 * records are read (from WalletKit's storage) and reported before a crash, so the test sees what was written.
 */
async function broadcasting<T>(chain: string, bytes: string, send: () => Promise<T>): Promise<T> {
  if (crash === 'before-broadcast') await die(chain, bytes)
  try {
    const result = await send()
    report({ event: 'broadcast', chain, bytes, result })
    if (crash === 'after-broadcast') await die(chain, bytes)
    return result
  } catch (error) {
    report({ event: 'broadcast', chain, bytes, error: String(error) })
    throw error
  }
}

/** SIGKILL: no handler, no flush, no answer; what is on disk is all the next start has. */
async function die(chain: string, bytes: string): Promise<never> {
  report({ event: 'crash', point: crash, chain, bytes, journal: await journalRecords() })
  process.kill(process.pid, 'SIGKILL')
  return new Promise<never>(() => {})
}

/** The journal's records as WalletKit's storage holds them (key, method and state). */
async function journalRecords(): Promise<{ key: string; method: string; state: string }[]> {
  const entries = await core.storage.getEntries<Record<string, unknown>>()
  return entries
    .map(([, value]) => value)
    .filter((value) => value?.v === 1 && typeof value.paramsHash === 'string')
    .map((value) => ({ key: String(value.key), method: String(value.method), state: String(value.state) }))
}

const namespaces: Namespace[] = []
if (env.ANVIL_URL !== undefined) {
  const anvil = httpProvider(env.ANVIL_URL)
  namespaces.push(
    eip155({
      keys: mnemonicKeys({ mnemonic: devMnemonic }),
      chains: [
        {
          chainId: Number(required('ANVIL_CHAIN_ID')),
          provider: {
            request: (args) => {
              if (args.method !== 'eth_sendRawTransaction') return anvil.request(args)
              const [raw] = args.params as [string]
              return broadcasting('eip155', raw, () => anvil.request(args))
            },
          },
        },
      ],
    }),
  )
}
if (env.ESPLORA_URL !== undefined) {
  const chain = esplora(env.ESPLORA_URL, { retries: 0 })
  namespaces.push(
    bip122({
      keys: hdKeys({ mnemonic: bitcoinMnemonic }),
      chains: {
        [BIP122_REGTEST]: {
          provider: {
            ...chain,
            broadcast: (raw) =>
              broadcasting('bip122', Buffer.from(raw).toString('hex'), () => chain.broadcast(raw)),
          },
        },
      },
      cacheMs: 0,
      gapLimit: 8,
    }),
  )
}
if (env.TONCENTER_URL !== undefined) {
  const chain = toncenter(env.TONCENTER_URL)
  namespaces.push(
    ton({
      keys: tonKeys.fromSecretKey(Buffer.from(tonSeedHex, 'hex')),
      chains: [TON_TESTNET],
      providers: {
        [TON_TESTNET]: {
          ...chain,
          sendBoc: (boc) =>
            broadcasting('ton', Buffer.from(boc).toString('base64'), () => chain.sendBoc(boc)),
        },
      },
    }),
  )
}

const wallet = createWalletRpc({
  namespaces,
  approve: (review) => {
    report({ event: 'approve', method: review.method, chainId: review.chainId })
    return true
  },
  onError: (error) => report({ event: 'error', where: 'wallet', message: String(error) }),
})

const walletKit = await WalletKit.init({
  core,
  metadata: { name: 'Exactly-once wallet', description: '', url: 'https://wallet.example', icons: [] },
})

// Each delivery of a request by WalletKit (registered before the adapter's listener, so reported first).
walletKit.on('session_request', (event) =>
  report({ event: 'request', id: event.id, method: event.params.request.method }),
)

const respond = walletKit.respondSessionRequest.bind(walletKit)
// The relay offline for the rest of this run: every answer is lost (the adapter tries again), and after the first
// the user closes the app.
let respondFailures = crash === 'respond-fails' ? 0 : undefined
walletKit.respondSessionRequest = async (params) => {
  if (respondFailures !== undefined) {
    if (respondFailures++ === 0) {
      report({ event: 'respond', id: params.response.id, failed: true })
      setImmediate(() => void stop())
    }
    throw new Error('relay offline (injected)')
  }
  await respond(params)
  report({ event: 'respond', ...params.response })
}

const adapter = attachWalletKit(walletKit, wallet, {
  approveSession: (proposal) => {
    report({ event: 'session', origin: proposal.origin ?? null })
    return true
  },
  onError: (error) => report({ event: 'error', where: 'adapter', message: String(error) }),
})

if (env.PAIRING_URI !== undefined) await walletKit.pair({ uri: env.PAIRING_URI })

let stopping = false
/** A clean exit: no more requests, the relay socket and timers closed, pending writes let finish. */
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  adapter.detach()
  await wallet.close()
  await walletKit.core.relayer.transportClose().catch(() => {})
  walletKit.core.heartbeat.stop()
  report({ event: 'stopped' })
  // The event loop ends by itself once WalletKit's writes are done; bounded in case a timer keeps it.
  setTimeout(() => process.exit(0), 3000).unref()
}
process.on('SIGTERM', () => void stop())

report({ event: 'ready', pending: walletKit.getPendingSessionRequests().map((request) => request.id) })

function required(name: string): string {
  const value = env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}
