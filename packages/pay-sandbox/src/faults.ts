import { PayHttpError } from './errors.js'

/** The gateway routes a fault can hit (the wallet side of the API). */
export type GatewayRouteName = 'options' | 'fetch' | 'confirm' | 'status' | 'info' | 'cancel'

export const gatewayRouteNames: readonly GatewayRouteName[] = [
  'options',
  'fetch',
  'confirm',
  'status',
  'info',
  'cancel',
]

export type GatewayFault = {
  route: GatewayRouteName
  /**
   * 503 (or another 5xx): a transient failure, the wallet retries. 409: the payment's option routes expire for real
   * (fetch and confirm answer 409 from then on: get options again). 410: the payment expires for real (final).
   */
  status: 409 | 410 | 500 | 502 | 503 | 504
  /** 1-based numbers of the calls to `route` for one payment that get the fault. Without it (and `rate`): every call. */
  calls?: number[]
  /** Each call gets the fault with this probability, decided by the seed, the payment's ordinal and the call number. */
  rate?: number
  /**
   * `before` (default): the call is refused and changes nothing. `after`: the call is carried out and then its
   * answer is lost (replaced by the fault): a confirm that went through, whose reply the wallet never saw.
   */
  when?: 'before' | 'after'
}

/**
 * A hostile gateway: the option shows the honest payment (account, asset, amount), but what its actions sign is
 * not that. `amount`: the Permit2 signature (behind the build action) permits 1000 times the amount; `asset`: the
 * approval and the signature are for another token; `chain`: the signature is for another chain (eip155:1, or
 * eip155:10 on chain 1), its action on that chain; `account`: the actions sign from another of the accounts the
 * wallet offered on the chain (when it offered one); `approval`: the approval is unlimited; `spender`: the approval
 * goes to the settlement contract instead of Permit2, so it and the signature can each take the amount. The
 * sandbox accepts what it asked for: only the wallet can refuse.
 */
export type HostileAction = 'amount' | 'asset' | 'chain' | 'account' | 'approval' | 'spender'

export const hostileActions: readonly HostileAction[] = [
  'amount',
  'asset',
  'chain',
  'account',
  'approval',
  'spender',
]

/**
 * What the sandbox does wrong on purpose, to rehearse the spec's obligations on receivers and wallets. Every
 * decision is a hash of the seed and a stable key (the delivery's sequence number and attempt, the payment's
 * ordinal and call number), never of timing: the same seed and the same sequence of calls replay the same faults.
 */
export type FaultPlan = {
  /** Default 1. */
  seed?: number
  /** Probability that an event gets a second, independent delivery (same event id, same body). */
  duplicateRate?: number
  /**
   * Each delivery's first attempt waits a seeded delay in [0, reorderWindowMs) (real milliseconds; the time scale does not apply):
   * events of one payment emitted close together arrive in another order.
   */
  reorderWindowMs?: number
  /**
   * Probability that an attempt's answer counts as arriving after the 15 s limit: the receiver got and handled
   * the request, the sandbox records a timeout and retries (simulated; nothing waits 15 real seconds).
   */
  lateRate?: number
  /** The signing secret rotates after every N-th attempt (the old one keeps signing for its 24 h overlap). */
  rotateEvery?: number
  gateway?: GatewayFault[]
  /** Confirm long polls are held for their whole `maxPollMs`, even when the status changes sooner. */
  holdLongPolls?: boolean
  /** EVM options offered from now on sign something else than they show (test mode only). */
  hostile?: HostileAction[]
}

export type FaultRecord = {
  kind: 'duplicate' | 'delay' | 'late' | 'rotate' | 'gateway' | 'hold' | 'hostile'
  /** The delivery's sequence number (0-based, in enqueue order) or the payment id. */
  target: string
  detail: string
}

const maxLog = 10_000

/** The active fault plan of one sandbox, its decisions and a log of every fault injected. */
export class Faults {
  private current: Normalised
  private readonly calls = new Map<string, number>()
  private readonly ordinals = new Map<string, number>()
  private attempts = 0
  readonly log: FaultRecord[] = []

  constructor(plan: FaultPlan = {}) {
    this.current = normalise(plan)
  }

  get plan(): FaultPlan {
    return structuredClone(this.current)
  }

  /** Replaces the plan (a test's own), resetting counters and the log. */
  set(plan: FaultPlan): void {
    this.current = normalise(plan)
    this.calls.clear()
    this.ordinals.clear()
    this.attempts = 0
    this.log.length = 0
  }

  get active(): boolean {
    const plan = this.current
    return (
      plan.duplicateRate > 0 ||
      plan.reorderWindowMs > 0 ||
      plan.lateRate > 0 ||
      plan.rotateEvery > 0 ||
      plan.gateway.length > 0 ||
      plan.holdLongPolls ||
      plan.hostile.length > 0
    )
  }

  /** What a new EVM option of `paymentId` signs instead of what it shows (logged when anything). */
  hostile(paymentId: string, optionId: string): readonly HostileAction[] {
    const actions = this.current.hostile
    if (actions.length > 0)
      this.record('hostile', paymentId, `option ${optionId} signs: ${actions.join(', ')}`)
    return actions
  }

  /** Whether a confirm long poll of `ms` on `paymentId` is held to its limit (logged when it is). */
  holdLongPoll(paymentId: string, ms: number): boolean {
    const yes = this.current.holdLongPolls && ms > 0
    if (yes) this.record('hold', paymentId, `confirm long poll held ${ms} ms`)
    return yes
  }

  /** Whether the delivery with this sequence number gets a duplicate. */
  duplicate(sequence: number): boolean {
    const yes = this.chance('duplicate', this.current.duplicateRate, sequence)
    if (yes) this.record('duplicate', String(sequence), 'a second delivery of the same event')
    return yes
  }

  /** Delay before the first attempt of this delivery (ms). */
  firstAttemptDelay(sequence: number): number {
    const window = this.current.reorderWindowMs
    if (window <= 0) return 0
    const delay = Math.floor(unit(this.current.seed, 'delay', sequence) * window)
    this.record('delay', String(sequence), `first attempt after ${delay} ms`)
    return delay
  }

  /** Whether this attempt's answer is counted as too late. */
  late(sequence: number, attempt: number): boolean {
    const yes = this.chance('late', this.current.lateRate, sequence, attempt)
    if (yes) this.record('late', String(sequence), `attempt ${attempt}: answer counted as after the limit`)
    return yes
  }

  /** Counts an attempt; true when the secret must rotate now. */
  rotateAfterAttempt(): boolean {
    this.attempts++
    const every = this.current.rotateEvery
    const yes = every > 0 && this.attempts % every === 0
    if (yes) this.record('rotate', String(this.attempts), `secret rotated after attempt ${this.attempts}`)
    return yes
  }

  /**
   * The fault for this call of `route` on `paymentId` at `phase`, if any; counts the call (phase `before`).
   * `ordinal` numbers payments in creation order, for seeded rates.
   */
  gateway(
    route: GatewayRouteName,
    paymentId: string,
    ordinal: () => number,
    phase: 'before' | 'after',
  ): GatewayFault | undefined {
    const rules = this.current.gateway.filter(
      (rule) => rule.route === route && (rule.when ?? 'before') === phase,
    )
    const key = `${route} ${paymentId}`
    if (phase === 'before') this.calls.set(key, (this.calls.get(key) ?? 0) + 1)
    if (rules.length === 0) return undefined
    const call = this.calls.get(key) ?? 1
    for (const rule of rules) {
      const hit =
        rule.calls !== undefined
          ? rule.calls.includes(call)
          : rule.rate !== undefined
            ? unit(this.current.seed, 'gateway', route, this.ordinal(paymentId, ordinal), call) < rule.rate
            : true
      if (hit) {
        this.record('gateway', paymentId, `${route} call ${call} (${phase}): ${rule.status}`)
        return rule
      }
    }
    return undefined
  }

  private ordinal(paymentId: string, ordinal: () => number): number {
    let value = this.ordinals.get(paymentId)
    if (value === undefined) {
      value = ordinal()
      this.ordinals.set(paymentId, value)
    }
    return value
  }

  private chance(kind: string, rate: number, ...key: number[]): boolean {
    return rate > 0 && unit(this.current.seed, kind, ...key) < rate
  }

  private record(kind: FaultRecord['kind'], target: string, detail: string): void {
    if (this.log.length < maxLog) this.log.push({ kind, target, detail })
  }
}

/** The error a gateway fault answers with (the contract's codes for 409 and 410). */
export function gatewayFaultError(fault: GatewayFault): PayHttpError {
  if (fault.status === 409) {
    return new PayHttpError(409, 'quote_expired', 'the option route expired; get options again (fault)')
  }
  if (fault.status === 410) return new PayHttpError(410, 'payment_expired', 'the payment expired (fault)')
  return new PayHttpError(fault.status, 'internal_error', `temporarily unavailable (fault ${fault.status})`)
}

/**
 * Parses the CLI's `--faults` value: comma-separated `key=value` items, e.g.
 * `seed=7,duplicates=0.3,reorder=200,late=0.1,rotate=5,gateway=confirm:503@1+2,gateway=fetch:409~0.2,hold-long-polls`.
 * `gateway=ROUTE:STATUS[@CALLS|~RATE][!after]` (calls joined by +). Throws a TypeError naming the bad item.
 */
export function parseFaultSpec(text: string): FaultPlan {
  if (typeof text !== 'string') throw new TypeError('--faults takes comma-separated key=value items')
  const plan: FaultPlan = {}
  const gateway: GatewayFault[] = []
  for (const item of text.split(',').map((part) => part.trim())) {
    if (item.length === 0) continue
    const [key, value = ''] = item.split('=', 2) as [string, string?]
    const number = (min: number, max: number) => {
      const parsed = Number(value)
      if (value === '' || !Number.isFinite(parsed) || parsed < min || parsed > max) {
        throw new TypeError(`--faults ${key} must be a number from ${min} to ${max}`)
      }
      return parsed
    }
    switch (key) {
      case 'seed':
        plan.seed = Math.trunc(number(0, 2 ** 32 - 1))
        break
      case 'duplicates':
        plan.duplicateRate = number(0, 1)
        break
      case 'reorder':
        plan.reorderWindowMs = number(0, 3_600_000)
        break
      case 'late':
        plan.lateRate = number(0, 1)
        break
      case 'rotate':
        plan.rotateEvery = Math.trunc(number(1, 1_000_000))
        break
      case 'hold-long-polls':
        plan.holdLongPolls = true
        break
      case 'hostile':
        plan.hostile = value.split('+').map((action) => {
          if (!hostileActions.includes(action as HostileAction))
            throw new TypeError(
              `--faults hostile=${value}: each of ${hostileActions.join(', ')}, joined by +`,
            )
          return action as HostileAction
        })
        break
      case 'gateway':
        gateway.push(parseGatewayFault(value))
        break
      default:
        throw new TypeError(
          `unknown --faults item ${key}; one of seed, duplicates, reorder, late, rotate, gateway, hold-long-polls, hostile`,
        )
    }
  }
  if (gateway.length > 0) plan.gateway = gateway
  return plan
}

function parseGatewayFault(text: string): GatewayFault {
  const match = /^([a-z]+):([0-9]{3})(?:@([0-9+]+)|~([0-9.]+))?(!after)?$/.exec(text)
  const route = match?.[1] as GatewayRouteName | undefined
  const status = Number(match?.[2])
  if (match === null || route === undefined || !gatewayRouteNames.includes(route) || !isFaultStatus(status)) {
    throw new TypeError(
      `--faults gateway=${text}: expected ROUTE:STATUS[@CALLS|~RATE][!after], ROUTE one of ${gatewayRouteNames.join(' ')}, STATUS 409, 410 or 5xx`,
    )
  }
  const fault: GatewayFault = { route, status }
  if (match[3] !== undefined) fault.calls = match[3].split('+').filter(Boolean).map(Number)
  if (match[4] !== undefined) {
    const rate = Number(match[4])
    if (!(rate >= 0 && rate <= 1)) throw new TypeError(`--faults gateway=${text}: the rate is from 0 to 1`)
    fault.rate = rate
  }
  if (match[5] !== undefined) fault.when = 'after'
  return fault
}

function isFaultStatus(status: number): status is GatewayFault['status'] {
  return [409, 410, 500, 502, 503, 504].includes(status)
}

/** Validates a plan given over HTTP or in code; a TypeError names the bad field. */
export function checkFaultPlan(plan: unknown): FaultPlan {
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) {
    throw new TypeError('the fault plan is an object')
  }
  const input = plan as Record<string, unknown>
  const known = new Set([
    'seed',
    'duplicateRate',
    'reorderWindowMs',
    'lateRate',
    'rotateEvery',
    'gateway',
    'holdLongPolls',
    'hostile',
  ])
  for (const key of Object.keys(input)) if (!known.has(key)) throw new TypeError(`unknown fault ${key}`)
  const rate = (key: string) => {
    const value = input[key]
    if (value === undefined) return
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new TypeError(`${key} is from 0 to 1`)
  }
  const whole = (key: string, max: number) => {
    const value = input[key]
    if (value === undefined) return
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
      throw new TypeError(`${key} is a whole number from 0 to ${max}`)
    }
  }
  rate('duplicateRate')
  rate('lateRate')
  whole('seed', 2 ** 32 - 1)
  whole('reorderWindowMs', 3_600_000)
  whole('rotateEvery', 1_000_000)
  if (input.holdLongPolls !== undefined && typeof input.holdLongPolls !== 'boolean') {
    throw new TypeError('holdLongPolls is a boolean')
  }
  if (
    input.hostile !== undefined &&
    (!Array.isArray(input.hostile) ||
      !input.hostile.every((action) => hostileActions.includes(action as HostileAction)))
  ) {
    throw new TypeError(`hostile is a list of ${hostileActions.join(', ')}`)
  }
  if (input.gateway !== undefined) {
    if (!Array.isArray(input.gateway)) throw new TypeError('gateway is an array')
    for (const [index, entry] of input.gateway.entries()) checkGatewayFault(entry, `gateway[${index}]`)
  }
  return input as FaultPlan
}

function checkGatewayFault(entry: unknown, path: string): void {
  if (typeof entry !== 'object' || entry === null) throw new TypeError(`${path} is an object`)
  const fault = entry as Record<string, unknown>
  if (!gatewayRouteNames.includes(fault.route as GatewayRouteName)) {
    throw new TypeError(`${path}.route is one of ${gatewayRouteNames.join(', ')}`)
  }
  if (typeof fault.status !== 'number' || !isFaultStatus(fault.status)) {
    throw new TypeError(`${path}.status is 409, 410, 500, 502, 503 or 504`)
  }
  if (
    fault.calls !== undefined &&
    (!Array.isArray(fault.calls) ||
      !fault.calls.every((call) => Number.isInteger(call) && (call as number) >= 1))
  ) {
    throw new TypeError(`${path}.calls is a list of call numbers from 1`)
  }
  if (fault.rate !== undefined && (typeof fault.rate !== 'number' || !(fault.rate >= 0 && fault.rate <= 1))) {
    throw new TypeError(`${path}.rate is from 0 to 1`)
  }
  if (fault.when !== undefined && fault.when !== 'before' && fault.when !== 'after') {
    throw new TypeError(`${path}.when is before or after`)
  }
}

type Normalised = Required<Omit<FaultPlan, 'gateway' | 'hostile'>> & {
  gateway: GatewayFault[]
  hostile: HostileAction[]
}

function normalise(plan: FaultPlan): Normalised {
  checkFaultPlan(plan)
  return {
    seed: plan.seed ?? 1,
    duplicateRate: plan.duplicateRate ?? 0,
    reorderWindowMs: plan.reorderWindowMs ?? 0,
    lateRate: plan.lateRate ?? 0,
    rotateEvery: plan.rotateEvery ?? 0,
    gateway: (plan.gateway ?? []).map((fault) => ({ ...fault })),
    holdLongPolls: plan.holdLongPolls ?? false,
    hostile: [...(plan.hostile ?? [])],
  }
}

/** A number in [0, 1) from the seed and a key: a 32-bit FNV-1a over the key, finished with a murmur3 mix. */
function unit(seed: number, ...key: Array<string | number>): number {
  let hash = 0x811c9dc5 ^ seed
  for (const char of key.join('|')) {
    hash ^= char.charCodeAt(0)
    hash = Math.imul(hash, 0x01000193)
  }
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return (hash >>> 0) / 2 ** 32
}
