import type { AssetKind } from '../../core/balanceChanges.js'

/** keccak256 of each event signature (checked against viem's in the tests). */
export const eventTopics = {
  /** Transfer(address,address,uint256): ERC-20 (3 topics, amount in data) and ERC-721 (4 topics). */
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  /** Approval(address,address,uint256): ERC-20 (3 topics) and ERC-721 (4 topics). */
  approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  /** ApprovalForAll(address,address,bool): ERC-721 and ERC-1155. */
  approvalForAll: '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31',
  /** TransferSingle(address,address,address,uint256,uint256): ERC-1155. */
  transferSingle: '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62',
  /** TransferBatch(address,address,address,uint256[],uint256[]): ERC-1155. */
  transferBatch: '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb',
  /** Deposit(address,uint256): WETH9 minting wrapped coin to the depositor (it emits no Transfer). */
  deposit: '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
  /** Withdrawal(address,uint256): WETH9 burning the holder's wrapped coin. */
  withdrawal: '0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65',
} as const

/** Where eth_simulateV1 with `traceTransfers` puts native-coin transfers, as ERC-20-shaped Transfer logs. */
export const nativeTransferAddress = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'

/** How many logs are decoded, and how many entries of one ERC-1155 batch; beyond them the review says so. */
export const defaultMaxLogs = 500
const maxBatchEntries = 256

/** A net change of one asset for the account, before its metadata is read. */
export type DecodedChange = {
  kind: AssetKind
  /** Lowercase contract address; undefined for the native coin. */
  asset: string | undefined
  tokenId?: bigint
  amount: bigint
  direction: 'in' | 'out'
}

/** An allowance the account granted or revoked; the last event per asset, spender and token wins. */
export type DecodedApproval = {
  kind: 'fungible' | 'nft' | 'all'
  asset: string
  spender: string
  amount: bigint | undefined
  granted: boolean
}

export type DecodedLogs = {
  changes: DecodedChange[]
  approvals: DecodedApproval[]
  /** Logs beyond `maxLogs`, not decoded. */
  notDecoded: number
  /** Logs that name the account but are no event decoded here, or are malformed. */
  unrecognized: number
  /** ERC-1155 batch entries beyond the per-log bound, not counted. */
  batchEntriesCut: number
}

type Log = { address: string; topics: string[]; data: string }

/**
 * The account's net balance changes and approvals in simulated logs: ERC-20 and ERC-721 Transfer,
 * ERC-1155 TransferSingle/TransferBatch, native transfers (traceTransfers pseudo-logs), ERC-20/721
 * Approval and ApprovalForAll. Logs are the node's (and the contracts') say: anything malformed is
 * skipped, never trusted, and this never throws.
 */
export function decodeBalanceChanges(
  logs: readonly unknown[],
  account: string,
  options: { maxLogs?: number } = {},
): DecodedLogs {
  const self = account.toLowerCase()
  const selfWord = self.slice(2).padStart(64, '0')
  const maxLogs = options.maxLogs ?? defaultMaxLogs
  const net = new Map<string, { kind: AssetKind; asset: string | undefined; tokenId?: bigint; net: bigint }>()
  const approvals = new Map<string, DecodedApproval>()
  let unrecognized = 0
  let batchEntriesCut = 0

  const move = (
    kind: AssetKind,
    asset: string | undefined,
    from: string,
    to: string,
    amount: bigint,
    tokenId?: bigint,
  ) => {
    const delta = (to === self ? amount : 0n) - (from === self ? amount : 0n)
    const key = `${kind}:${asset ?? ''}:${tokenId ?? ''}`
    const entry = net.get(key) ?? { kind, asset, ...(tokenId === undefined ? {} : { tokenId }), net: 0n }
    entry.net += delta
    net.set(key, entry)
  }

  const decodeOne = (log: Log): boolean => {
    const [topic0, t1, t2, t3] = log.topics.map((topic) => topic.toLowerCase())
    const address = log.address.toLowerCase()
    const words = log.data.length - 2
    if (topic0 === eventTopics.transfer) {
      const from = addressOf(t1)
      const to = addressOf(t2)
      if (from === undefined || to === undefined || (from !== self && to !== self))
        return from !== undefined && to !== undefined
      if (log.topics.length === 3 && words === 64) {
        const native = address === nativeTransferAddress
        move(native ? 'native' : 'fungible', native ? undefined : address, from, to, word(log.data, 0))
        return true
      }
      if (log.topics.length === 4 && words === 0 && t3 !== undefined) {
        move('nft', address, from, to, 1n, BigInt(t3))
        return true
      }
      return false
    }
    if (topic0 === eventTopics.approval || topic0 === eventTopics.approvalForAll) {
      const owner = addressOf(t1)
      const spender = addressOf(t2)
      if (owner === undefined || spender === undefined) return false
      if (owner !== self) return true
      if (topic0 === eventTopics.approvalForAll) {
        if (log.topics.length !== 3 || words !== 64) return false
        approvals.set(`all:${address}:${spender}`, {
          kind: 'all',
          asset: address,
          spender,
          amount: undefined,
          granted: word(log.data, 0) !== 0n,
        })
        return true
      }
      if (log.topics.length === 3 && words === 64) {
        const amount = word(log.data, 0)
        approvals.set(`fungible:${address}:${spender}`, {
          kind: 'fungible',
          asset: address,
          spender,
          amount,
          granted: amount !== 0n,
        })
        return true
      }
      if (log.topics.length === 4 && words === 0 && t3 !== undefined) {
        // Approval of the zero address clears a token's approval (every ERC-721 transfer does): not shown.
        if (BigInt(spender) !== 0n)
          approvals.set(`nft:${address}:${t3}`, {
            kind: 'nft',
            asset: address,
            spender,
            amount: BigInt(t3),
            granted: true,
          })
        return true
      }
      return false
    }
    if (topic0 === eventTopics.transferSingle || topic0 === eventTopics.transferBatch) {
      const from = addressOf(t2)
      const to = addressOf(t3)
      if (log.topics.length !== 4 || addressOf(t1) === undefined || from === undefined || to === undefined)
        return false
      if (from !== self && to !== self) return true
      if (topic0 === eventTopics.transferSingle) {
        if (words !== 128) return false
        move('multi', address, from, to, word(log.data, 1), word(log.data, 0))
        return true
      }
      const batch = batchOf(log.data)
      if (batch === undefined) return false
      batchEntriesCut += Math.max(0, batch.length - maxBatchEntries)
      for (let index = 0; index < Math.min(batch.length, maxBatchEntries); index++) {
        move(
          'multi',
          address,
          from,
          to,
          word(log.data, batch.values + 1 + index),
          word(log.data, batch.ids + 1 + index),
        )
      }
      return true
    }
    if (topic0 === eventTopics.deposit || topic0 === eventTopics.withdrawal) {
      const holder = addressOf(t1)
      if (log.topics.length !== 2 || holder === undefined || words !== 64) return false
      if (holder === self) {
        const amount = word(log.data, 0)
        if (topic0 === eventTopics.deposit) move('fungible', address, address, self, amount)
        else move('fungible', address, self, address, amount)
      }
      return true
    }
    return false // an event of another kind: counted when it names the account
  }

  let seen = 0
  for (const entry of logs) {
    if (seen >= maxLogs) break
    seen++
    const log = logOf(entry)
    if (log === undefined) continue
    if (!decodeOne(log) && mentions(log, selfWord)) unrecognized++
  }

  const changes: DecodedChange[] = []
  for (const entry of net.values()) {
    if (entry.net === 0n) continue
    changes.push({
      kind: entry.kind,
      asset: entry.asset,
      ...(entry.tokenId === undefined ? {} : { tokenId: entry.tokenId }),
      amount: entry.net < 0n ? -entry.net : entry.net,
      direction: entry.net < 0n ? 'out' : 'in',
    })
  }
  changes.sort((a, b) => (a.kind === 'native' ? -1 : 0) - (b.kind === 'native' ? -1 : 0))
  return {
    changes,
    approvals: [...approvals.values()],
    notDecoded: Math.max(0, logs.length - maxLogs),
    unrecognized,
    batchEntriesCut,
  }
}

const hexPattern = /^0x([0-9a-fA-F]{2})*$/
const topicPattern = /^0x[0-9a-fA-F]{64}$/

/** A log with a 20-byte address, 32-byte topics and byte-aligned hex data, or undefined. */
function logOf(entry: unknown): Log | undefined {
  if (entry === null || typeof entry !== 'object') return undefined
  const { address, topics, data } = entry as Record<string, unknown>
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined
  if (!Array.isArray(topics) || topics.length > 4) return undefined
  if (!topics.every((topic) => typeof topic === 'string' && topicPattern.test(topic))) return undefined
  if (typeof data !== 'string' || !hexPattern.test(data)) return undefined
  return { address, topics: topics as string[], data }
}

function mentions(log: Log, selfWord: string): boolean {
  return (
    log.topics.some((topic) => topic.slice(2).toLowerCase() === selfWord) ||
    log.data.toLowerCase().includes(selfWord.slice(24))
  )
}

/** The address in an indexed topic; undefined when the upper 12 bytes are not zero (not an address). */
function addressOf(topic: string | undefined): string | undefined {
  if (topic === undefined || !/^0x0{24}[0-9a-f]{40}$/.test(topic)) return undefined
  return `0x${topic.slice(26)}`
}

/** The `index`th 32-byte word of `data` as an unsigned integer (the caller checked the length). */
function word(data: string, index: number): bigint {
  return BigInt(`0x${data.slice(2 + index * 64, 2 + (index + 1) * 64) || '0'}`)
}

/**
 * Word positions of TransferBatch's two arrays (`uint256[] ids, uint256[] values`): offsets and lengths
 * must lie inside the data and the lengths agree, else undefined.
 */
function batchOf(data: string): { ids: number; values: number; length: number } | undefined {
  const words = (data.length - 2) / 64
  if (!Number.isInteger(words) || words < 4) return undefined
  const position = (offsetWord: number) => {
    const offset = word(data, offsetWord)
    if (offset % 32n !== 0n || offset / 32n >= BigInt(words)) return undefined
    return Number(offset / 32n)
  }
  const ids = position(0)
  const values = position(1)
  if (ids === undefined || values === undefined) return undefined
  const length = word(data, ids)
  if (length !== word(data, values)) return undefined
  if (BigInt(ids) + 1n + length > BigInt(words) || BigInt(values) + 1n + length > BigInt(words))
    return undefined
  return { ids, values, length: Number(length) }
}
