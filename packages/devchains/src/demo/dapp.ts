// The demo's dapp: requests the wallet by chain and method, checks every answer, records one row each.
import type { WalletEvent, WalletRpc } from 'wallet-rpc'
import type { VerifyResult } from 'wallet-rpc/verify'
import { verifiers } from 'wallet-rpc/verify'
import { ANVIL, REGTEST, SOLANA, TON } from './chains.js'

export type DemoRow = { method: string; chain: string; verified: boolean; ms: number; note?: string }

export const origin = 'https://dapp.example'

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`${code} ${message}`)
  }
}

/** A dapp's view of the wallet: requests by chain and method, answers checked, each one a table row. */
export class DappSession {
  private nextId = 1
  private readonly done = new Set<string>()
  readonly events: WalletEvent[] = []

  private waiters: (() => void)[] = []

  constructor(
    readonly wallet: WalletRpc,
    private readonly record: (row: DemoRow) => void,
  ) {
    wallet.on('event', (event) => {
      this.events.push(event)
      for (const wake of this.waiters.splice(0)) wake()
    })
  }

  /** The first event after `since` (an index into `events`) that matches, waiting up to `timeoutMs`. */
  async nextEvent(
    since: number,
    match: (event: WalletEvent) => boolean,
    timeoutMs: number,
  ): Promise<WalletEvent | undefined> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const found = this.events.slice(since).find(match)
      if (found || performance.now() >= deadline) return found
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  async request(chainId: string, method: string, params: unknown): Promise<unknown> {
    const response = (await this.wallet.handle({
      chainId,
      origin,
      request: { id: this.nextId++, jsonrpc: '2.0', method, params },
    })) as { result?: unknown; error?: { code: number; message: string; data?: { reason?: string } } }
    if (response.error) {
      const reason = response.error.data?.reason ? ` (${response.error.data.reason})` : ''
      throw new RpcFailure(response.error.code, `${response.error.message}${reason}`)
    }
    return response.result
  }

  /** Sends one request and checks the answer with `check`; records the row. Never throws. */
  async step<T>(
    chainId: string,
    method: string,
    params: unknown,
    check: (result: T) => Promise<VerifyResult> | VerifyResult,
    label = method,
  ): Promise<T | undefined> {
    this.done.add(`${chainId} ${method}`)
    const started = performance.now()
    let verdict: VerifyResult
    let result: T | undefined
    try {
      result = (await this.request(chainId, method, params)) as T
      verdict = await check(result)
    } catch (error) {
      verdict = { valid: false, reason: error instanceof Error ? error.message : String(error) }
    }
    this.record({
      method: label,
      chain: chainId,
      verified: verdict.valid,
      ms: Math.round(performance.now() - started),
      ...(verdict.valid ? {} : { note: verdict.reason }),
    })
    return verdict.valid ? result : undefined
  }

  /** A request the wallet must refuse with `code`. */
  async refused(chainId: string, method: string, params: unknown, code: number, why: string): Promise<void> {
    this.done.add(`${chainId} ${method}`)
    const started = performance.now()
    let verified = false
    let note = why
    try {
      await this.request(chainId, method, params)
      note = `answered, expected refusal ${code}`
    } catch (error) {
      verified = error instanceof RpcFailure && error.code === code
      if (!verified) note = `expected ${code}, got ${error instanceof Error ? error.message : String(error)}`
    }
    this.record({ method, chain: chainId, verified, ms: Math.round(performance.now() - started), note })
  }

  note(row: DemoRow): void {
    this.record(row)
  }

  unexercised(): { method: string; chain: string }[] {
    const chainsOf: Record<string, string> = { bip122: REGTEST, ton: TON, eip155: ANVIL, solana: SOLANA }
    return this.wallet
      .supported()
      .flatMap((namespace) =>
        namespace.methods.map((method) => ({ method, chain: chainsOf[namespace.name] ?? '' })),
      )
      .filter(({ method, chain }) => !this.done.has(`${chain} ${method}`))
  }
}

export const verify = verifiers
