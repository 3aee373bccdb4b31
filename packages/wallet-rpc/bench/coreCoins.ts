import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import * as btc from '@scure/btc-signer'
import type { CoreNode } from '@wallet-rpc/devchains/litecoind'

/**
 * `count` coins of `sats` on a Bitcoin-Core-derived regtest node, paid to `scripts` in turn, each by a
 * transaction of its own (so a wallet spending them fetches one parent per coin), in one block: the
 * devchains faucet's `fund` mines a block per coin, and litecoind's regtest stops mining at height 431 (MWEB
 * activation). The faucet pays a key of this helper once; that coin is split into chains of at most 24
 * unconfirmed transactions (Core's descendant limit is 25), each paying one coin and its change onward.
 * Signed with @scure/btc-signer, never with the wallet under test.
 */
export async function fundDistinctParents(
  node: CoreNode,
  scripts: readonly Uint8Array[],
  count: number,
  sats: number,
): Promise<void> {
  const key = sha256(new TextEncoder().encode('wallet-rpc bench coins'))
  const own = btc.p2wpkh(secp256k1.getPublicKey(key, true)).script
  const fee = 1_000n
  const chainLength = 24
  const chains = Math.ceil(count / chainLength)
  const perChain = BigInt(chainLength) * (BigInt(sats) + fee) + 10_000n // the last change is no dust
  // The split pays 1 sat/vB or more (about 43 vB per output).
  const splitFee = BigInt(chains * 50 + 200)
  const funding = await node.fund(own, Number(perChain * BigInt(chains) + splitFee))
  const spend = (input: { txid: string; vout: number; value: bigint }, outputs: [Uint8Array, bigint][]) => {
    const tx = new btc.Transaction()
    tx.addInput({ txid: input.txid, index: input.vout, witnessUtxo: { script: own, amount: input.value } })
    for (const [script, amount] of outputs) tx.addOutput({ script, amount })
    tx.sign(key)
    tx.finalize()
    return { hex: tx.hex, txid: tx.id }
  }
  const split = spend(
    { ...funding, value: perChain * BigInt(chains) + splitFee },
    Array.from({ length: chains }, () => [own, perChain] as [Uint8Array, bigint]),
  )
  // The split confirmed first (its descendants would pass Core's limit), then the chains level by level
  // (parents before children), each level one JSON-RPC batch.
  const levels: string[][] = []
  let paid = 0
  const heads = Array.from({ length: chains }, (_, vout) => ({ txid: split.txid, vout, value: perChain }))
  for (let level = 0; level < chainLength && paid < count; level++) {
    const hexes: string[] = []
    for (const [index, head] of heads.entries()) {
      if (paid >= count) break
      const change = head.value - BigInt(sats) - fee
      const next = spend(head, [
        [scripts[paid % scripts.length]!, BigInt(sats)],
        [own, change],
      ])
      hexes.push(next.hex)
      heads[index] = { txid: next.txid, vout: 1, value: change }
      paid++
    }
    levels.push(hexes)
  }
  const send = async (hexes: string[]) => {
    const response = await fetch(node.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${btoa(`${node.auth.username}:${node.auth.password}`)}`,
      },
      body: JSON.stringify(
        hexes.map((hex, id) => ({ jsonrpc: '1.0', id, method: 'sendrawtransaction', params: [hex] })),
      ),
    })
    const replies = (await response.json()) as { error?: { message: string } | null }[]
    const failed = replies.find((reply) => reply.error)
    if (failed) throw new Error(`sendrawtransaction: ${failed.error!.message}`)
  }
  await send([split.hex])
  await node.mine(1)
  for (const hexes of levels) await send(hexes)
  await node.mine(1)
}
