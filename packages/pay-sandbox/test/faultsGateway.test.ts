import { afterEach, describe, expect, it } from 'vitest'
import { parsePaySandboxArgs } from '../src/cli/paySandbox.js'
import { type PaySandbox, parseFaultSpec, sandboxSpender, startPaySandbox } from '../src/index.js'
import { api, createPayment, expectError, payByHand } from './helpers.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function sandboxWith(options: Parameters<typeof startPaySandbox>[0] = {}): Promise<PaySandbox> {
  const sandbox = await startPaySandbox({ processingMs: null, settlementMs: null, ...options })
  cleanup.push(() => sandbox.stop())
  return sandbox
}

const accounts = { accounts: ['eip155:31337:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'] }

describe('fault mode on the gateway', () => {
  it('503 before: the chosen calls are refused and change nothing; the next call goes through', async () => {
    const sandbox = await sandboxWith({
      faults: { gateway: [{ route: 'options', status: 503, calls: [1, 2] }] },
    })
    const call = api(sandbox)
    const id = await createPayment(sandbox)
    const first = await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts })
    expectError(first, 503, 'internal_error')
    expectError(
      await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts }),
      503,
      'internal_error',
    )
    const third = await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts })
    expect(third.status).toBe(200)
    expect(third.body.options).toHaveLength(1)
    // Counted per payment: another payment's first call is refused too.
    const other = await createPayment(sandbox, 'order-2')
    expect((await call('POST', `/v1/gateway/payment/${other}/options`, { body: accounts })).status).toBe(503)
    expect(sandbox.faults.log().map((record) => record.detail)).toEqual([
      'options call 1 (before): 503',
      'options call 2 (before): 503',
      'options call 1 (before): 503',
    ])
  })

  it('503 after on confirm: the confirm went through but its answer is lost; a retried confirm sees processing', async () => {
    const sandbox = await sandboxWith({
      faults: { gateway: [{ route: 'confirm', status: 503, calls: [1], when: 'after' }] },
    })
    const id = await createPayment(sandbox)
    const lost = await payByHand(sandbox, id)
    expectError(lost, 503, 'internal_error')
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'processing', payment_state_version: 1 })
    const retried = await api(sandbox)('POST', `/v1/gateway/payment/${id}/confirm`, {
      body: { optionId: 'any', results: [] },
    })
    expect(retried.status).toBe(200)
    expect(retried.body).toMatchObject({ status: 'processing', isFinal: false })
    // Nothing happened twice: one processing event.
    expect(sandbox.control.events().map((event) => event.type)).toEqual([
      'payment.created',
      'payment.processing',
    ])
  })

  it('409 is made true: the routes expire, fetch keeps answering 409 until options are fetched again', async () => {
    const sandbox = await sandboxWith({ faults: { gateway: [{ route: 'fetch', status: 409, calls: [1] }] } })
    const call = api(sandbox)
    const id = await createPayment(sandbox)
    const offered = await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts })
    const option = offered.body.options[0]
    const build = option.actions.find((action: { type: string }) => action.type === 'build')
    const fetchBuild = (optionId: string, data: string) =>
      call('POST', `/v1/gateway/payment/${id}/fetch`, { body: { optionId, data } })
    expectError(await fetchBuild(option.id, build.data.data), 409, 'quote_expired')
    expectError(await fetchBuild(option.id, build.data.data), 409, 'quote_expired')
    const again = await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts })
    const fresh = again.body.options[0]
    expect(fresh.id).not.toBe(option.id)
    const freshBuild = fresh.actions.find((action: { type: string }) => action.type === 'build')
    expect((await fetchBuild(fresh.id, freshBuild.data.data)).status).toBe(200)
  })

  it('410 is made true: the payment expires (payment.expired is emitted) and stays 410', async () => {
    const sandbox = await sandboxWith({
      faults: { gateway: [{ route: 'options', status: 410, calls: [2] }] },
    })
    const call = api(sandbox)
    const id = await createPayment(sandbox)
    expect((await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts })).status).toBe(200)
    expectError(
      await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts }),
      410,
      'payment_expired',
    )
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'expired' })
    expectError(
      await call('POST', `/v1/gateway/payment/${id}/options`, { body: accounts }),
      410,
      'payment_expired',
    )
    // A 410 that cannot be true (the payment is no longer awaiting the buyer) is not injected.
    const paid = await createPayment(sandbox, 'order-2')
    sandbox.control.process(paid)
    sandbox.faults.set({ gateway: [{ route: 'status', status: 410 }] })
    const status = await call('GET', `/v1/gateway/payment/${paid}/status`)
    expect(status.status).toBe(200)
    expect(sandbox.faults.log()).toHaveLength(1)
  })

  it('seeded rates: the same seed hits the same calls', async () => {
    const hits: boolean[][] = []
    for (let round = 0; round < 2; round++) {
      const sandbox = await sandboxWith({
        faults: { seed: 99, gateway: [{ route: 'status', status: 503, rate: 0.5 }] },
      })
      const call = api(sandbox)
      const id = await createPayment(sandbox)
      const replies = []
      for (let index = 0; index < 16; index++)
        replies.push(await call('GET', `/v1/gateway/payment/${id}/status`))
      hits.push(replies.map((reply) => reply.status === 503))
    }
    expect(hits[0]).toEqual(hits[1])
    expect(hits[0]).toContain(true)
    expect(hits[0]).toContain(false)
  })

  it('long polls are held to their limit even when the status changes sooner', async () => {
    const sandbox = await sandboxWith({ faults: { holdLongPolls: true } })
    const id = await createPayment(sandbox)
    sandbox.control.process(id)
    const limitMs = 300
    let limitPassed = false
    const confirm = api(sandbox)('POST', `/v1/gateway/payment/${id}/confirm?maxPollMs=${limitMs}`, {
      body: { optionId: 'any', results: [] },
    })
    // Once the sandbox holds the poll, the payment succeeds; an honest long poll would answer now.
    while (!sandbox.faults.log().some((record) => record.kind === 'hold'))
      await new Promise((r) => setTimeout(r, 2))
    sandbox.control.succeed(id)
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        limitPassed = true
        resolve()
      }, limitMs / 2),
    )
    const reply = await confirm
    // The answer cannot come before the hold ends; the status it carries is the one at the end of the hold.
    expect(limitPassed).toBe(true)
    expect(reply.body).toMatchObject({ status: 'succeeded', isFinal: true })
    expect(sandbox.faults.log()).toEqual([
      { kind: 'hold', target: id, detail: 'confirm long poll held 300 ms' },
    ])
    await timer
  })

  it('per test over HTTP: PUT sets a plan (bad ones are 400), GET shows plan and log, DELETE turns it off', async () => {
    const sandbox = await sandboxWith()
    const call = api(sandbox)
    expect((await call('GET', '/_sandbox/faults')).body).toMatchObject({ active: false, log: [] })
    expectError(
      await call('PUT', '/_sandbox/faults', { body: { duplicateRate: 2 } }),
      400,
      'params_validation',
    )
    expectError(await call('PUT', '/_sandbox/faults', { body: { lateness: 1 } }), 400, 'params_validation')
    expectError(
      await call('PUT', '/_sandbox/faults', { body: { gateway: [{ route: 'pay', status: 503 }] } }),
      400,
      'params_validation',
    )
    const set = await call('PUT', '/_sandbox/faults', {
      body: { seed: 3, gateway: [{ route: 'status', status: 502, calls: [1] }] },
    })
    expect(set.body).toMatchObject({ active: true, plan: { seed: 3 } })
    const id = await createPayment(sandbox)
    expect((await call('GET', `/v1/gateway/payment/${id}/status`)).status).toBe(502)
    expect((await call('GET', '/_sandbox/faults')).body.log).toEqual([
      { kind: 'gateway', target: id, detail: 'status call 1 (before): 502' },
    ])
    expect((await call('DELETE', '/_sandbox/faults')).body).toMatchObject({ active: false })
    expect((await call('GET', `/v1/gateway/payment/${id}/status`)).status).toBe(200)
    expect((await call('GET', '/_sandbox/faults', { headers: { 'api-key': undefined } })).status).toBe(401)
  })

  it('hostile: the option shows the honest payment while its actions sign something else (and the log says so)', async () => {
    const sandbox = await sandboxWith({ faults: { hostile: ['amount', 'asset', 'account', 'approval'] } })
    const call = api(sandbox)
    const id = await createPayment(sandbox)
    const second = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const offered = await call('POST', `/v1/gateway/payment/${id}/options`, {
      body: { accounts: [...accounts.accounts, second] },
    })
    const [option] = offered.body.options
    expect(option.account).toBe(accounts.accounts[0])
    expect(option.amount).toMatchObject({ value: '12500000', display: { assetSymbol: 'USDC', decimals: 6 } })
    const [approval, build] = option.actions
    const [transaction] = approval.data.params
    // Signed from the other offered account, for another token, unlimited.
    expect(transaction.from).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(transaction.to).not.toBe(option.amount.unit.split(':').pop())
    expect(transaction.data.endsWith('f'.repeat(64))).toBe(true)
    const fetched = await call('POST', `/v1/gateway/payment/${id}/fetch`, {
      body: { optionId: option.id, data: build.data.data },
    })
    const typedData = JSON.parse(fetched.body.actions[0].data.params[1])
    expect(typedData.message.permitted.amount).toBe('12500000000')
    expect(sandbox.faults.log()).toContainEqual({
      kind: 'hostile',
      target: id,
      detail:
        'option for eip155:31337:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 signs: amount, asset, account, approval',
    })
    // `spender`: the approval grants the settlement contract itself, beside the Permit2 signature.
    sandbox.faults.set({ hostile: ['spender'] })
    const spent = await createPayment(sandbox, 'order-spender')
    const [spenderOption] = (
      await call('POST', `/v1/gateway/payment/${spent}/options`, { body: { accounts: accounts.accounts } })
    ).body.options
    const [approve] = spenderOption.actions[0].data.params
    expect(`0x${approve.data.slice(34, 74)}`).toBe(sandboxSpender.toLowerCase())
    expect(parseFaultSpec('hostile=amount+chain+spender')).toEqual({
      hostile: ['amount', 'chain', 'spender'],
    })
    expect(() => parseFaultSpec('hostile=amount+recipient')).toThrow(/hostile=amount\+recipient/)
    expectError(
      await call('PUT', '/_sandbox/faults', { body: { hostile: ['fees'] } }),
      400,
      'params_validation',
    )
  })

  it('--faults parses the CLI spec; a bad item names itself', () => {
    expect(
      parseFaultSpec(
        'seed=7,duplicates=0.3,reorder=200,late=0.1,rotate=5,gateway=confirm:503@1+3!after,gateway=fetch:409~0.2,hold-long-polls',
      ),
    ).toEqual({
      seed: 7,
      duplicateRate: 0.3,
      reorderWindowMs: 200,
      lateRate: 0.1,
      rotateEvery: 5,
      holdLongPolls: true,
      gateway: [
        { route: 'confirm', status: 503, calls: [1, 3], when: 'after' },
        { route: 'fetch', status: 409, rate: 0.2 },
      ],
    })
    expect(() => parseFaultSpec('duplicates=2')).toThrow(/duplicates/)
    expect(() => parseFaultSpec('gateway=pay:503')).toThrow(/gateway=pay:503/)
    expect(() => parseFaultSpec('gateway=confirm:404')).toThrow(/STATUS/)
    expect(() => parseFaultSpec('chaos=1')).toThrow(/unknown --faults item chaos/)
    expect(parsePaySandboxArgs(['--faults', 'seed=1,late=0.5'])).toMatchObject({
      faults: { seed: 1, lateRate: 0.5 },
    })
    expect(() => parsePaySandboxArgs(['--faults', 'late=x'])).toThrow(/late/)
  })
})
