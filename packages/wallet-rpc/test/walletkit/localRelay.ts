import { randomBytes, randomUUID } from 'node:crypto'
import { Core } from '@walletconnect/core'
import type { CoreTypes, ICore } from '@walletconnect/types'
import { memoryStorage as conformanceMemoryStorage } from '../../src/conformance/walletconnect.js'

/**
 * A WalletConnect relay small enough to read, on 127.0.0.1 and a random port, so the real
 * `@walletconnect/core` of a dapp and of a wallet can talk without the network. It forwards the relay
 * JSON-RPC the SDK speaks (relay spec: `irn_subscribe`, `irn_batchSubscribe`, `irn_unsubscribe`,
 * `irn_publish`, `irn_batchFetchMessages`, and the session methods `wc_proposeSession` /
 * `wc_approveSession`, which publish and subscribe the sender in one call). Messages stay end-to-end
 * encrypted: it routes ciphertext by topic, as the real relay does, and keeps messages for topics nobody
 * subscribed to yet. Like the real relay it keeps each delivered message until the subscriber acknowledges
 * it: a socket that closes first (an MV3 worker Chrome stopped) leaves its messages for the next subscriber.
 */
export type LocalRelay = { url: string; methods: string[]; close(): Promise<void> }

type Socket = {
  send(data: string): void
  on(event: 'message', listener: (data: unknown) => void): void
  on(event: 'close', listener: () => void): void
  terminate(): void
}
type Server = {
  on(event: 'connection', listener: (socket: Socket) => void): void
  on(event: 'listening', listener: () => void): void
  address(): { port: number }
  clients: Set<Socket>
  close(callback: () => void): void
}

type Delivery = { topic: string; message: string; publishedAt: number; tag: number }
/** A published message and the socket that published it (which never gets it back). */
type Routed = { data: Delivery; from: Socket }

/** The params of every relay method handled here (each method uses its own subset). */
type RelayParams = {
  topic: string
  topics: string[]
  message: string
  tag: number
  subscriptions: Array<{ topic: string }>
  pairingTopic: string
  sessionTopic: string
  sessionProposal: string
  sessionProposalResponse: string
  sessionSettlementRequest: string
}

export async function startLocalRelay(): Promise<LocalRelay> {
  // `ws` ships inside @walletconnect/core's dependency tree without type declarations.
  const wsModule: string = 'ws'
  const { WebSocketServer } = (await import(wsModule)) as {
    WebSocketServer: new (options: { host: string; port: number }) => Server
  }
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  const subscriptions = new Map<string, Map<Socket, string>>()
  /** Per topic, messages no subscriber other than their publisher has taken yet. */
  const mailbox = new Map<string, Routed[]>()
  /** Per socket, the deliveries it has not acknowledged yet, by the irn_subscription request's id. */
  const unacknowledged = new Map<Socket, Map<number, Routed>>()
  const methods: string[] = []
  let nextId = 1

  const deliver = (socket: Socket, subscriptionId: string, routed: Routed) => {
    const id = Date.now() * 1000 + (nextId++ % 1000)
    unacknowledged.get(socket)?.set(id, routed)
    socket.send(
      JSON.stringify({
        id,
        jsonrpc: '2.0',
        method: 'irn_subscription',
        params: { id: subscriptionId, data: routed.data },
      }),
    )
  }
  /** To every subscriber of the topic but the publisher; kept for the next one when there is none. */
  const route = (routed: Routed) => {
    const others = [...(subscriptions.get(routed.data.topic) ?? [])].filter(
      ([socket]) => socket !== routed.from,
    )
    if (others.length === 0)
      mailbox.set(routed.data.topic, [...(mailbox.get(routed.data.topic) ?? []), routed])
    for (const [subscriber, id] of others) deliver(subscriber, id, routed)
  }

  server.on('connection', (socket) => {
    unacknowledged.set(socket, new Map())
    const subscribe = (topic: string): string => {
      const id = randomBytes(32).toString('hex')
      const subscribers = subscriptions.get(topic) ?? new Map<Socket, string>()
      subscribers.set(socket, id)
      subscriptions.set(topic, subscribers)
      const waiting = mailbox.get(topic) ?? []
      const mine = waiting.filter((routed) => routed.from !== socket)
      for (const routed of mine) deliver(socket, id, routed)
      if (mine.length === waiting.length) mailbox.delete(topic)
      else
        mailbox.set(
          topic,
          waiting.filter((routed) => routed.from === socket),
        )
      return id
    }
    const publish = (topic: string, message: string, tag: number): void =>
      route({ data: { topic, message, publishedAt: Date.now(), tag }, from: socket })
    socket.on('close', () => {
      for (const subscribers of subscriptions.values()) subscribers.delete(socket)
      // Sent to this socket but never acknowledged (it died first): to the topic's other subscribers.
      const lost = [...(unacknowledged.get(socket)?.values() ?? [])]
      unacknowledged.delete(socket)
      for (const routed of lost) route(routed)
    })
    socket.on('message', (raw) => {
      const request = JSON.parse(String(raw)) as {
        id: number
        method?: string
        params?: Record<string, never>
      }
      if (request.method === undefined) {
        unacknowledged.get(socket)?.delete(request.id) // a client's acknowledgement of irn_subscription
        return
      }
      methods.push(request.method)
      const params = request.params ?? ({} as RelayParams)
      let result: unknown = true
      switch (request.method) {
        case 'irn_subscribe':
          result = subscribe(params.topic)
          break
        case 'irn_batchSubscribe':
          result = params.topics.map(subscribe)
          break
        case 'irn_unsubscribe':
          subscriptions.get(params.topic)?.delete(socket)
          break
        case 'irn_batchUnsubscribe':
          for (const { topic } of params.subscriptions) {
            subscriptions.get(topic)?.delete(socket)
          }
          break
        case 'irn_batchFetchMessages':
          result = { messages: [], hasMore: false }
          break
        case 'irn_publish':
          publish(params.topic, params.message, params.tag)
          break
        case 'wc_proposeSession':
          subscribe(params.pairingTopic)
          publish(params.pairingTopic, params.sessionProposal, 1100)
          break
        case 'wc_approveSession':
          subscribe(params.sessionTopic)
          publish(params.pairingTopic, params.sessionProposalResponse, 1101)
          publish(params.sessionTopic, params.sessionSettlementRequest, 1102)
          break
        default:
          socket.send(
            JSON.stringify({
              id: request.id,
              jsonrpc: '2.0',
              error: { code: -32601, message: `local relay: ${request.method}` },
            }),
          )
          return
      }
      socket.send(JSON.stringify({ id: request.id, jsonrpc: '2.0', result }))
    })
  })
  await new Promise<void>((resolve) => server.on('listening', resolve))

  return {
    url: `ws://127.0.0.1:${server.address().port}`,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate()
        server.close(resolve)
      }),
  }
}

/** In-memory storage for a Core, so tests neither read nor write files (the conformance dapp's own). */
export function memoryStorage(): NonNullable<CoreTypes.Options['storage']> {
  return conformanceMemoryStorage()
}

/** A real `@walletconnect/core` on `relay`, with its own memory storage; `name` prefixes its storage keys. */
export const relayCore = (relay: LocalRelay, name: string): ICore =>
  // The SDK's Core class and its ICore declaration disagree under exactOptionalPropertyTypes only.
  new Core({
    projectId: 'local-test',
    relayUrl: relay.url,
    storage: memoryStorage(),
    customStoragePrefix: `${name}-${randomUUID()}`,
    telemetryEnabled: false,
    logger: 'silent',
  }) as unknown as ICore

/** Closes each SDK client's relay socket and heartbeat (a WalletKit or a SignClient; undefined ones skipped). */
export async function closeSdkClients(
  clients: ReadonlyArray<{ core: Pick<ICore, 'relayer' | 'heartbeat'> } | undefined>,
): Promise<void> {
  for (const client of clients) {
    if (!client) continue
    await client.core.relayer.transportClose().catch(() => {})
    client.core.heartbeat.stop()
  }
}
