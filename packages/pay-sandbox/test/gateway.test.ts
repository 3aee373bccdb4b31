import { SignTypedDataVersion, signTypedData } from '@metamask/eth-sig-util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type PaySandbox,
  permit2Address,
  sandboxCollector,
  sandboxSpender,
  startPaySandbox,
} from '../src/index.js'
import {
  api,
  buyer,
  createPayment,
  expectError,
  payByHand,
  signTypedDataParams,
  stranger,
  usd,
} from './helpers.js'

const buyerKey = Buffer.from('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'hex')

let sandbox: PaySandbox
let call: ReturnType<typeof api>

beforeAll(async () => {
  sandbox = await startPaySandbox({ processingMs: 0, settlementMs: 0 })
  call = api(sandbox)
})
afterAll(() => sandbox.stop())

const gateway = (id: string, step: string, body: unknown, query = '') =>
  call('POST', `/v1/gateway/payment/${id}/${step}${query}`, { body })

async function optionFor(id: string, account = buyer, chainId = 31337) {
  const reply = await gateway(id, 'options', { accounts: [`eip155:${chainId}:${account.address}`] })
  expect(reply.status).toBe(200)
  return reply.body.options[0]
}

/** Waits (without a deadline of its own) until the payment reaches `status`. */
async function until(id: string, status: string): Promise<void> {
  while (sandbox.control.payment(id).status !== status) await new Promise((resolve) => setImmediate(resolve))
}

describe('options', () => {
  it('one USDC option per EVM account: approval transaction then a build action; none for other namespaces', async () => {
    const id = await createPayment(sandbox, 'opt-1', usd('1250'))
    const reply = await gateway(
      id,
      'options',
      {
        accounts: [
          `eip155:1:${buyer.address.toLowerCase()}`,
          `eip155:31337:${buyer.address}`,
          'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv',
          'bip122:000000000019d6689c085ae165831e93:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        ],
      },
      '?includePaymentInfo=true',
    )
    expect(reply.status).toBe(200)
    expect(reply.headers.get('pay-version')).toBe('2026-02-18')
    const { options, info, collectData } = reply.body
    expect(options.map((option: { account: string }) => option.account)).toEqual([
      `eip155:1:${buyer.address}`,
      `eip155:31337:${buyer.address}`,
    ])
    const mainnet = options[0]
    expect(mainnet.amount).toEqual({
      unit: 'caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      value: '12500000',
      display: expect.objectContaining({ assetSymbol: 'USDC', decimals: 6, networkName: 'Ethereum' }),
    })
    expect(mainnet.actions).toHaveLength(2)
    const [approval, build] = mainnet.actions
    expect(approval.type).toBe('walletRpc')
    expect(approval.data.chain_id).toBe('eip155:1')
    expect(approval.data.method).toBe('eth_sendTransaction')
    const [transaction] = approval.data.params
    expect(transaction.from).toBe(buyer.address)
    expect(transaction.to).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')
    // approve(Permit2, the token amount).
    expect(transaction.data.slice(0, 10)).toBe('0x095ea7b3')
    expect(`0x${transaction.data.slice(34, 74)}`).toBe(permit2Address.toLowerCase())
    expect(BigInt(`0x${transaction.data.slice(74)}`)).toBe(12_500_000n)
    expect(build).toEqual({ type: 'build', data: { data: expect.stringMatching(/^build_/) } })
    expect(mainnet.expiresAt).toBeLessThanOrEqual(info.expiresAt)
    expect(info).toEqual({
      status: 'requires_action',
      amount: {
        unit: 'iso4217/USD',
        value: '1250',
        display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
      },
      expiresAt: expect.any(Number),
      merchant: { name: 'Sandbox Merchant', iconUrl: null },
    })
    expect(collectData).toBeNull()
    expect(mainnet.collectData).toBeNull()
  })

  it('payment info only on request; the same account keeps its option unless refresh is true', async () => {
    const id = await createPayment(sandbox, 'opt-2')
    const first = await gateway(id, 'options', { accounts: [`eip155:31337:${buyer.address}`] })
    expect(first.body).not.toHaveProperty('info')
    const again = await gateway(id, 'options', { accounts: [`eip155:31337:${buyer.address}`] })
    expect(again.body.options[0].id).toBe(first.body.options[0].id)
    const refreshed = await gateway(id, 'options', {
      accounts: [`eip155:31337:${buyer.address}`],
      refresh: true,
    })
    expect(refreshed.body.options[0].id).not.toBe(first.body.options[0].id)
  })

  it('malformed requests are 400 params_validation', async () => {
    const id = await createPayment(sandbox, 'opt-3')
    for (const body of [
      {},
      { accounts: [] },
      { accounts: ['0xabc'] },
      { accounts: ['eip155:1:0x1234'] },
      { accounts: 'eip155:1:x' },
    ]) {
      const reply = await gateway(id, 'options', body)
      expectError(reply, 400, 'params_validation', JSON.stringify(body))
    }
    const flag = await gateway(
      id,
      'options',
      { accounts: [`eip155:1:${buyer.address}`] },
      '?includePaymentInfo=yes',
    )
    expectError(flag, 400, 'params_validation')
  })

  it('unknown payment 404 payment_not_found; a final payment is 400 invalid_state', async () => {
    const unknown = await gateway('pay_unknown', 'options', { accounts: [`eip155:1:${buyer.address}`] })
    expectError(unknown, 404, 'payment_not_found')
    const id = await createPayment(sandbox, 'opt-4')
    sandbox.control.cancel(id)
    const final = await gateway(id, 'options', { accounts: [`eip155:1:${buyer.address}`] })
    expectError(final, 400, 'invalid_state')
    expect(final.body).toMatchObject({ code: 'invalid_state', details: { status: 'cancelled' } })
  })

  it('fetch on a payment that is no longer payable is 400 invalid_state', async () => {
    const id = await createPayment(sandbox, 'opt-final-fetch')
    const option = await optionFor(id)
    sandbox.control.fail(id)
    const reply = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
    expectError(reply, 400, 'invalid_state')
  })

  it('wallet authentication with App-Id + Client-Id works on the gateway', async () => {
    const id = await createPayment(sandbox, 'opt-5')
    const reply = await call('POST', `/v1/gateway/payment/${id}/options`, {
      headers: { 'api-key': undefined, 'app-id': sandbox.appId, 'client-id': 'wallet-7' },
      body: { accounts: [`eip155:1:${buyer.address}`] },
    })
    expect(reply.status).toBe(200)
  })
})

describe('options: refresh', () => {
  it('true renews every account’s option; a list of option ids (the OpenAPI’s form) renews those; null keeps them', async () => {
    const id = await createPayment(sandbox, 'refresh-1')
    const accounts = [`eip155:1:${buyer.address}`, `eip155:31337:${buyer.address}`]
    const options = async (refresh?: unknown) =>
      (
        await gateway(id, 'options', refresh === undefined ? { accounts } : { accounts, refresh })
      ).body.options.map((option: { id: string }) => option.id) as string[]
    const [first, second] = await options()
    expect(await options(null)).toEqual([first, second])
    const listed = await options([second])
    expect(listed[0]).toBe(first)
    expect(listed[1]).not.toBe(second)
    const renewed = await options(true)
    expect(renewed[0]).not.toBe(first)
    expect(renewed[1]).not.toBe(listed[1])
  })
})

describe('fetch', () => {
  it('turns the build into a Permit2 PermitWitnessTransferFrom signature request (the settlement contract may move the amount to the payee)', async () => {
    const id = await createPayment(sandbox, 'fetch-1', usd('1250'))
    const option = await optionFor(id)
    const reply = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
    expect(reply.status).toBe(200)
    expect(reply.body.actions).toHaveLength(1)
    const [action] = reply.body.actions
    expect(action.type).toBe('walletRpc')
    expect(action.data).toMatchObject({ chain_id: 'eip155:31337', method: 'eth_signTypedData_v4' })
    const [address, json] = action.data.params
    expect(address).toBe(buyer.address)
    const typed = JSON.parse(json)
    expect(typed.primaryType).toBe('PermitWitnessTransferFrom')
    expect(typed.domain).toEqual({ name: 'Permit2', chainId: 31337, verifyingContract: permit2Address })
    expect(typed.types.EIP712Domain.map((field: { name: string }) => field.name)).toEqual([
      'name',
      'chainId',
      'verifyingContract',
    ])
    expect(typed.message).toMatchObject({
      permitted: { token: option.actions[0].data.params[0].to, amount: '12500000' },
      spender: sandboxSpender,
      witness: { to: sandboxCollector },
    })
    expect(typed.message.nonce).toMatch(/^[0-9]{1,78}$/)
    expect(Number(typed.message.deadline)).toBe(option.expiresAt)
  })

  it('wrong build data 400; unknown option 400 invalid_params; expired route 409 quote_expired', async () => {
    const id = await createPayment(sandbox, 'fetch-2')
    const option = await optionFor(id)
    const wrong = await gateway(id, 'fetch', { optionId: option.id, data: 'build_forged' })
    expectError(wrong, 400, 'params_validation')
    const unknown = await gateway(id, 'fetch', { optionId: 'opt_nope', data: option.actions[1].data.data })
    expectError(unknown, 400, 'invalid_params')
    sandbox.control.expireRoutes(id)
    const expired = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
    expectError(expired, 409, 'quote_expired')
    expect(expired.body).toMatchObject({ code: 'quote_expired', details: { optionId: option.id } })
    // Options again give a fresh route that works.
    const fresh = await optionFor(id)
    expect(fresh.id).not.toBe(option.id)
    expect(
      (await gateway(id, 'fetch', { optionId: fresh.id, data: fresh.actions[1].data.data })).status,
    ).toBe(200)
  })

  it('routes expire by time too (clock-driven)', async () => {
    let now = Date.UTC(2026, 1, 18)
    const timed = await startPaySandbox({ clock: () => now, routeTtlMs: 30_000 })
    try {
      const id = await createPayment(timed, 'route-ttl')
      const timedCall = api(timed)
      const option = (
        await timedCall('POST', `/v1/gateway/payment/${id}/options`, {
          body: { accounts: [`eip155:1:${buyer.address}`] },
        })
      ).body.options[0]
      now += 30_000
      const reply = await timedCall('POST', `/v1/gateway/payment/${id}/fetch`, {
        body: { optionId: option.id, data: option.actions[1].data.data },
      })
      expectError(reply, 409, 'quote_expired')
    } finally {
      await timed.stop()
    }
  })
})

describe('confirm', () => {
  it('a signature from an independent EIP-712 implementation (eth-sig-util) succeeds, then settles', async () => {
    const id = await createPayment(sandbox, 'confirm-1', usd('1250'))
    const option = await optionFor(id)
    const fetched = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
    const [, json] = fetched.body.actions[0].data.params
    const signature = signTypedData({
      privateKey: buyerKey,
      data: JSON.parse(json),
      version: SignTypedDataVersion.V4,
    })
    const hash = `0x${'cd'.repeat(32)}`
    const reply = await gateway(
      id,
      'confirm',
      {
        optionId: option.id,
        results: [
          { type: 'walletRpc', data: [hash] },
          { type: 'walletRpc', data: [signature] },
        ],
      },
      '?maxPollMs=30000',
    )
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      status: 'succeeded',
      isFinal: true,
      pollInMs: null,
      info: {
        txId: `test:${id}`,
        optionAmount: { unit: option.amount.unit, value: '12500000', display: option.amount.display },
      },
    })
    await until(id, 'succeeded')
    while (
      sandbox.control.payment(id).settlement !== undefined &&
      !(sandbox.control.payment(id).settlement as { settled: boolean }).settled
    ) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    const snapshot = sandbox.control.payment(id)
    expect(snapshot).toMatchObject({
      transaction_hash: hash,
      buyer: { account_caip10: `eip155:31337:${buyer.address}` },
    })
    const types = sandbox.control
      .events()
      .filter((event) => event.data.payment_id === id)
      .map((event) => [event.type, event.data.payment_state_version])
    expect(types).toEqual([
      ['payment.created', 0],
      ['payment.processing', 1],
      ['payment.succeeded', 2],
      ['payment.settled', 3],
    ])
  })

  it('a signature by another key fails the payment (failure_reason says why)', async () => {
    const id = await createPayment(sandbox, 'confirm-2')
    const reply = await payByHand(sandbox, id, { signer: stranger })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ status: 'failed', isFinal: true, pollInMs: null })
    expect(sandbox.control.payment(id).failure_reason).toBe(
      'result 1: typed-data signature is not the account',
    )
  })

  it('misaligned results, malformed items, a zero hash, or confirming before fetch fail the payment', async () => {
    const cases: Array<[string, (option: unknown, signature: string) => unknown[], string | RegExp]> = [
      ['one result', (_option, signature) => [{ type: 'walletRpc', data: [signature] }], /2 actions/],
      [
        'swapped order',
        (_option, signature) => [
          { type: 'walletRpc', data: [signature] },
          { type: 'walletRpc', data: [`0x${'ab'.repeat(32)}`] },
        ],
        /result 0/,
      ],
      [
        'zero hash',
        (_option, signature) => [
          { type: 'walletRpc', data: [`0x${'0'.repeat(64)}`] },
          { type: 'walletRpc', data: [signature] },
        ],
        /zero hash/,
      ],
      [
        'two values in one item',
        (_option, signature) => [
          { type: 'walletRpc', data: [`0x${'ab'.repeat(32)}`, signature] },
          { type: 'walletRpc', data: [signature] },
        ],
        /result 0 is not/,
      ],
      [
        'wrong type',
        (_option, signature) => [
          { type: 'signature', data: [`0x${'ab'.repeat(32)}`] },
          { type: 'walletRpc', data: [signature] },
        ],
        /result 0 is not/,
      ],
    ]
    for (const [name, results, reason] of cases) {
      const id = await createPayment(sandbox, `confirm-${name}`)
      const option = await optionFor(id)
      const fetched = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
      const signature = await signTypedDataParams(buyer, fetched.body.actions[0].data.params)
      const reply = await gateway(id, 'confirm', { optionId: option.id, results: results(option, signature) })
      expect(reply.body.status, name).toBe('failed')
      expect(sandbox.control.payment(id).failure_reason, name).toMatch(reason)
    }
    const id = await createPayment(sandbox, 'confirm-nofetch')
    const option = await optionFor(id)
    const reply = await gateway(id, 'confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [`0x${'ab'.repeat(32)}`] }],
    })
    expect(reply.body.status).toBe('failed')
    expect(sandbox.control.payment(id).failure_reason).toMatch(/never fetched/)
  })

  it('body errors are 400 and leave the payment payable; unknown option 404; expired route 409', async () => {
    const id = await createPayment(sandbox, 'confirm-errors')
    const option = await optionFor(id)
    for (const body of [{}, { optionId: option.id }, { optionId: option.id, results: 'x' }]) {
      const reply = await gateway(id, 'confirm', body)
      expectError(reply, 400, 'params_validation')
    }
    for (const query of ['?maxPollMs=-1', '?maxPollMs=abc', '?maxPollMs=60001']) {
      const reply = await gateway(id, 'confirm', { optionId: option.id, results: [] }, query)
      expectError(reply, 400, 'params_validation', query)
    }
    const unknown = await gateway(id, 'confirm', { optionId: 'opt_x', results: [] })
    expectError(unknown, 400, 'invalid_params')
    sandbox.control.expireRoutes(id)
    const expired = await gateway(id, 'confirm', { optionId: option.id, results: [] })
    expectError(expired, 409, 'quote_expired')
    expect(sandbox.control.payment(id).status).toBe('requires_action')
  })

  it('maxPollMs holds the reply until the status changes; without it the reply is immediate', async () => {
    const slow = await startPaySandbox({ processingMs: null, settlementMs: null })
    try {
      const quick = await payByHand(slow, await createPayment(slow, 'poll-0'))
      expect(quick.body).toMatchObject({ status: 'processing', isFinal: false, pollInMs: 1000 })
      const id = await createPayment(slow, 'poll-1')
      const pending = payByHand(slow, id, { maxPollMs: 60_000 })
      while (slow.control.payment(id).status !== 'processing')
        await new Promise((resolve) => setImmediate(resolve))
      slow.control.succeed(id)
      const reply = await pending
      expect(reply.body).toMatchObject({ status: 'succeeded', isFinal: true, pollInMs: null })
      // A later confirm (the polling loop) reports the status without checking results again.
      const again = await api(slow)('POST', `/v1/gateway/payment/${id}/confirm`, {
        body: { optionId: 'opt_whatever', results: [] },
      })
      expect(again.body).toMatchObject({ status: 'succeeded', isFinal: true })
      // stop() releases a held long poll.
      const held = await createPayment(slow, 'poll-2')
      const holding = payByHand(slow, held, { maxPollMs: 60_000 })
      while (slow.control.payment(held).status !== 'processing')
        await new Promise((resolve) => setImmediate(resolve))
      await Promise.all([slow.stop(), holding])
    } finally {
      await slow.stop()
    }
  })
})

describe('expiry (410)', () => {
  it('options, fetch, confirm and cancel answer 410 payment_expired once the payment expired', async () => {
    const id = await createPayment(sandbox, 'gone')
    const option = await optionFor(id)
    sandbox.control.expire(id)
    const replies = [
      await gateway(id, 'options', { accounts: [`eip155:1:${buyer.address}`] }),
      await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data }),
      await gateway(id, 'confirm', { optionId: option.id, results: [] }),
      await gateway(id, 'cancel', {}),
    ]
    for (const reply of replies) {
      expectError(reply, 410, 'payment_expired')
    }
    const status = await call('GET', `/v1/gateway/payment/${id}/status`)
    expect(status.body).toMatchObject({ status: 'expired', isFinal: true, pollInMs: null })
  })
})

describe('payment info', () => {
  it('GET /v1/gateway/payment/{id} returns what the wallet shows; unknown id 404', async () => {
    const id = await createPayment(sandbox, 'info-1', { unit: 'iso4217/JPY', value: '1500' })
    const reply = await call('GET', `/v1/gateway/payment/${id}`)
    expect(reply.body).toEqual({
      paymentId: id,
      status: 'requires_action',
      amount: {
        unit: 'iso4217/JPY',
        value: '1500',
        display: { assetSymbol: 'JPY', assetName: 'Yen', decimals: 0 },
      },
      expiresAt: expect.any(Number),
      merchant: { name: 'Sandbox Merchant', iconUrl: null },
    })
    // JPY has no minor unit: 1500 yen at the sandbox's test rate 0.0067 USDC/yen = 10.05 USDC.
    const option = await optionFor(id)
    expect(option.amount.value).toBe('10050000')
    expectError(await call('GET', '/v1/gateway/payment/pay_nope'), 404, 'payment_not_found')
  })
})

describe('cancel', () => {
  it('the buyer cancels a payable payment; a second cancel is 422', async () => {
    const id = await createPayment(sandbox, 'cancel-1')
    const reply = await gateway(id, 'cancel', {})
    expect(reply.body).toMatchObject({ status: 'cancelled', isFinal: true })
    expect(sandbox.control.payment(id).cancellation_reason).toBe('cancelled by the buyer')
    expectError(await gateway(id, 'cancel', {}), 400, 'invalid_state')
  })
})

describe('single-build layout', () => {
  it('the option is one build action; fetch returns approval and signature, confirm takes both', async () => {
    const single = await startPaySandbox({ actionLayout: 'single-build', processingMs: 0 })
    try {
      const id = await createPayment(single, 'single')
      const singleCall = api(single)
      const options = await singleCall('POST', `/v1/gateway/payment/${id}/options`, {
        body: { accounts: [`eip155:10:${buyer.address}`] },
      })
      const option = options.body.options[0]
      expect(option.actions.map((action: { type: string }) => action.type)).toEqual(['build'])
      const fetched = await singleCall('POST', `/v1/gateway/payment/${id}/fetch`, {
        body: { optionId: option.id, data: option.actions[0].data.data },
      })
      expect(fetched.body.actions.map((action: { data: { method: string } }) => action.data.method)).toEqual([
        'eth_sendTransaction',
        'eth_signTypedData_v4',
      ])
      const reply = await payByHand(single, id, { chainId: 10, maxPollMs: 30_000 })
      expect(reply.body.status).toBe('succeeded')
    } finally {
      await single.stop()
    }
  })
})

describe('collectData', () => {
  it('on demand: both levels carry it; confirm without data is 400 collect_data_required; with data it succeeds', async () => {
    const id = await createPayment(sandbox, 'kyc-1')
    sandbox.control.requireCollectData(id)
    const reply = await gateway(id, 'options', { accounts: [`eip155:31337:${buyer.address}`] })
    const expected = {
      url: `${sandbox.url}/collect/${id}`,
      schema: expect.objectContaining({ type: 'object', required: ['fullName', 'dateOfBirth'] }),
      fields: expect.arrayContaining([expect.objectContaining({ id: 'fullName', required: true })]),
    }
    expect(reply.body.collectData).toEqual(expected)
    expect(reply.body.options[0].collectData).toEqual(expected)
    const option = reply.body.options[0]
    const fetched = await gateway(id, 'fetch', { optionId: option.id, data: option.actions[1].data.data })
    const signature = await signTypedDataParams(buyer, fetched.body.actions[0].data.params)
    const results = [
      { type: 'walletRpc', data: [`0x${'ab'.repeat(32)}`] },
      { type: 'walletRpc', data: [signature] },
    ]
    const without = await gateway(id, 'confirm', { optionId: option.id, results })
    expectError(without, 400, 'params_validation')
    const incomplete = await gateway(id, 'confirm', {
      optionId: option.id,
      results,
      collectedData: { fields: [{ id: 'fullName', value: 'Ada Lovelace' }] },
    })
    expectError(incomplete, 400, 'params_validation')
    const complete = await gateway(
      id,
      'confirm',
      {
        optionId: option.id,
        results,
        collectedData: {
          fields: [
            { id: 'fullName', value: 'Ada Lovelace' },
            { id: 'dateOfBirth', value: '1815-12-10' },
          ],
        },
      },
      '?maxPollMs=30000',
    )
    expect(complete.body.status).toBe('succeeded')
    expect(sandbox.control.payment(id).collected_data).toEqual([
      { id: 'fullName', value: 'Ada Lovelace' },
      { id: 'dateOfBirth', value: '1815-12-10' },
    ])
  })

  it('the collect page refuses payments that collect nothing (409) and malformed data (400)', async () => {
    const id = await createPayment(sandbox, 'kyc-3')
    const post = (body: unknown) =>
      call('POST', `/collect/${id}`, { body, headers: { 'api-key': undefined } })
    const none = await post({ fields: [{ id: 'fullName', value: 'X' }] })
    expectError(none, 409, 'collect_data_not_required')
    sandbox.control.requireCollectData(id)
    const bad = await post({
      fields: [
        { id: 'fullName', value: 'X' },
        { id: 'dateOfBirth', value: '10/12/1815' },
      ],
    })
    expectError(bad, 400, 'params_validation')
    const unknownField = await post({ fields: [{ id: 'ssn', value: '1' }] })
    expectError(unknownField, 400, 'params_validation')
  })

  it('web-view flow: the form page stores the data, then confirm goes through without collectedData', async () => {
    const id = await createPayment(sandbox, 'kyc-2')
    sandbox.control.requireCollectData(id)
    const page = await fetch(`${sandbox.url}/collect/${id}`)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    expect(await page.text()).toContain('name="dateOfBirth"')
    const form = await fetch(`${sandbox.url}/collect/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'fullName=Grace+Hopper&dateOfBirth=1906-12-09&country=US',
    })
    expect(await form.text()).toContain('IC_COMPLETE')
    const reply = await payByHand(sandbox, id, { maxPollMs: 30_000 })
    expect(reply.body.status).toBe('succeeded')
  })
})
