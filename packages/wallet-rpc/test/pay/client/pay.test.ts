import { describe, expect, it } from 'vitest'
import {
  createPayClient,
  executePayActions,
  formatAmount,
  InvalidPaymentLinkError,
  OptionUnavailableError,
  PayAbortedError,
  PayActionError,
  PaymentExpiredError,
  PayProtocolError,
  PayTimeoutError,
  RouteExpiredError,
} from '../../../src/pay/index.js'
import {
  evmAddress,
  fakeTime,
  fakeTonNamespace,
  fakeWallet,
  optionsBody,
  payClientFixture,
  scriptedGateway,
  typedDataAction,
  usd,
  usdcOnBase,
  usdcOption,
  walletRpcAction,
} from './fakes.js'

const fetched = { status: 200, body: { actions: [typedDataAction] } }
const succeeded = {
  status: 200,
  body: { status: 'succeeded', isFinal: true, pollInMs: null, info: { txId: 'test:pay_1' } },
}
const processing = { status: 200, body: { status: 'processing', isFinal: false, pollInMs: 750 } }

describe('getOptions', () => {
  it('sends every account of every configured chain in CAIP-10 form, and includePaymentInfo when asked', async () => {
    const { client, gateway } = payClientFixture(
      { options: [{ status: 200, body: optionsBody([usdcOption()]) }] },
      { chains: ['eip155:1', 'eip155:8453'], namespaces: [fakeTonNamespace()] },
    )
    const options = await client.getOptions('https://pay.walletconnect.com/pay_1', {
      includePaymentInfo: true,
    })
    const request = gateway.requests[0]!
    expect(request.url.pathname).toBe('/v1/gateway/payment/pay_1/options')
    expect(request.url.searchParams.get('includePaymentInfo')).toBe('true')
    expect(request.body).toEqual({
      accounts: [`eip155:1:${evmAddress}`, `eip155:8453:${evmAddress}`, 'ton:-239:0:abcd'],
    })
    expect(options.paymentId).toBe('pay_1')
    expect(options.expiresAtMs).toBe(1_800_000_600_000)
    expect(client.remainingMs(options)).toBe(600_000)
  })

  it('sends includePaymentInfo=false unless asked (as the official client does)', async () => {
    const { client, gateway } = payClientFixture({ options: [{ status: 200, body: { options: [] } }] })
    const options = await client.getOptions('pay_1')
    expect(gateway.requests[0]!.url.search).toBe('?includePaymentInfo=false')
    expect(options.info).toBeUndefined()
    expect(client.remainingMs(options)).toBeUndefined()
  })

  it('marks options needing a namespace, chain or method the wallet lacks as unavailable', async () => {
    const solana = {
      id: 'opt_sol',
      account: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv',
      amount: { unit: 'caip19/solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501', value: '1' },
      actions: [
        walletRpcAction('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana_signTransaction', ['AQ==']),
      ],
    }
    const otherChain = usdcOption('opt_eth', { account: `eip155:1:${evmAddress}` })
    const unknownMethod = {
      id: 'opt_method',
      account: `eip155:8453:${evmAddress}`,
      amount: usdcOnBase('1'),
      actions: [walletRpcAction('eip155:8453', 'eth_signTypedData_v3', [])],
    }
    const notOurs = usdcOption('opt_other', {
      account: 'eip155:8453:0x00000000000000000000000000000000000000b2',
    })
    const checksummed = usdcOption('opt_case', {
      account: `eip155:8453:${evmAddress.toUpperCase().replace('0X', '0x')}`,
    })
    const { client } = payClientFixture({
      options: [
        {
          status: 200,
          body: optionsBody([usdcOption(), solana, otherChain, unknownMethod, notOurs, checksummed]),
        },
      ],
    })
    const { options } = await client.getOptions('pay_1')
    expect(options.map((option) => [option.id, option.available])).toEqual([
      ['opt_1', true],
      ['opt_sol', false],
      ['opt_eth', false],
      ['opt_method', false],
      ['opt_other', false],
      ['opt_case', true],
    ])
    expect(options[1]!.unavailableReason).toMatch(/no solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp chain/)
    expect(options[3]!.unavailableReason).toMatch(/does not serve eth_signTypedData_v3/)
    expect(options[4]!.unavailableReason).toMatch(/not one of this wallet's accounts/)
  })

  it('offers no option that does not say which account pays what token amount: its actions could not be checked', async () => {
    const inCurrency = usdcOption('opt_fiat', { amount: usd('1250') })
    const noAccount = usdcOption('opt_anyone', { account: undefined })
    const otherChain = usdcOption('opt_mixed', {
      amount: {
        ...usdcOnBase('1'),
        unit: 'caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      },
    })
    const { client } = payClientFixture({
      options: [{ status: 200, body: optionsBody([inCurrency, noAccount, otherChain]) }],
    })
    const payment = await client.getOptions('pay_1', { includePaymentInfo: true })
    const { options } = payment
    expect(options.map((option) => [option.id, option.available, option.unavailableReason])).toEqual([
      [
        'opt_fiat',
        false,
        'the option names no token amount (a caip19 unit and base units), so its actions cannot be checked',
      ],
      ['opt_anyone', false, 'the option names no paying account, so its actions cannot be checked'],
      [
        'opt_mixed',
        false,
        'the option pays eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 from an account on eip155:8453',
      ],
    ])
    await expect(client.pay('pay_1', 'opt_fiat', { options: payment })).rejects.toBeInstanceOf(
      OptionUnavailableError,
    )
  })

  it('refuses a link from an untrusted host before any request', async () => {
    const { client, gateway } = payClientFixture({ options: [{ status: 200, body: { options: [] } }] })
    await expect(client.getOptions('https://pay.walletconnect.com.evil.io/pay_1')).rejects.toBeInstanceOf(
      InvalidPaymentLinkError,
    )
    await expect(client.pay('pay_1/../../admin', 'opt_1')).rejects.toMatchObject({
      code: 'invalid_payment_link',
    })
    expect(gateway.requests).toHaveLength(0)
  })
})

describe('pay', () => {
  it('fetches the build, runs approval then signature in order through the router, confirms, polls to succeeded', async () => {
    const { client, gateway, executed, reviews, time } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
      confirm: [processing, succeeded],
    })
    const statuses: string[] = []
    const result = await client.pay('pay_1', 'opt_1', { onStatus: (status) => statuses.push(status) })

    expect(result).toMatchObject({
      paymentId: 'pay_1',
      optionId: 'opt_1',
      status: 'succeeded',
      txId: 'test:pay_1',
    })
    expect(executed.map((call) => call.method)).toEqual(['eth_sendTransaction', 'eth_signTypedData_v4'])
    // params arrive JSON-decoded.
    expect(executed[1]!.params).toEqual([
      evmAddress,
      JSON.stringify({ primaryType: 'TransferWithAuthorization' }),
    ])
    // The approval carries the payment context.
    expect(reviews.map((review) => review.context)).toEqual([
      {
        payment: 'pay_1',
        merchant: 'Coffee Shop',
        amount: '12.5 USD',
        option: '12.5 USDC on Base (opt_1)',
        action: '1 of 2',
      },
      {
        payment: 'pay_1',
        merchant: 'Coffee Shop',
        amount: '12.5 USD',
        option: '12.5 USDC on Base (opt_1)',
        action: '2 of 2',
      },
    ])
    expect(reviews[0]!.origin).toBe('https://api.pay.example.com')

    expect(gateway.calls('fetch')[0]!.body).toEqual({ optionId: 'opt_1', data: 'build-opt_1' })
    // One confirm, then the status is polled (GET, no body), long polling on both.
    const confirms = gateway.calls('confirm')
    expect(confirms).toHaveLength(1)
    expect(confirms[0]!.url.searchParams.get('maxPollMs')).toBe('30000')
    const polls = gateway.calls('status')
    expect(polls).toHaveLength(1)
    expect(polls[0]!.url.searchParams.get('maxPollMs')).toBe('30000')
    expect(polls[0]!.body).toBeUndefined()
    expect(confirms[0]!.body).toEqual({
      optionId: 'opt_1',
      results: [
        { type: 'walletRpc', data: [result.results[0]] },
        { type: 'walletRpc', data: [result.results[1]] },
      ],
    })
    expect(result.results).toHaveLength(2)
    expect(statuses).toEqual(['processing', 'succeeded'])
    expect(time.state.sleeps).toEqual([750])
  })

  it('iterates over every action a build resolves into (rule 2), keeping results in order', async () => {
    const personal = walletRpcAction('eip155:8453', 'personal_sign', ['0x68656c6c6f', evmAddress])
    const { client, gateway, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [{ status: 200, body: { actions: [typedDataAction, personal] } }],
      confirm: [succeeded],
    })
    const result = await client.pay('pay_1', 'opt_1')
    expect(executed.map((call) => call.method)).toEqual([
      'eth_sendTransaction',
      'eth_signTypedData_v4',
      'personal_sign',
    ])
    const results = (gateway.calls('confirm')[0]!.body as { results: { data: string[] }[] }).results
    expect(results.map((entry) => entry.data[0])).toEqual(result.results)
    expect(results).toHaveLength(3)
  })

  it('shows the gateway’s words beside the review as one visible, bounded line each (merchant, amount, option)', async () => {
    const body = optionsBody([
      usdcOption('opt_1', {
        amount: { ...usdcOnBase('12500000'), display: { assetSymbol: 'USD\u202eC', decimals: 6 } },
      }),
    ])
    body.info.merchant = { name: `Coffee\u202e Shop\n${'x'.repeat(500)}` }
    const { client, reviews } = payClientFixture({
      options: [{ status: 200, body }],
      fetch: [fetched],
      confirm: [succeeded],
    })
    await client.pay('pay_1', 'opt_1')
    const context = reviews[0]!.context!
    expect(context.merchant).toBe(`Coffee\\u{202E} Shop\\u{A}${'x'.repeat(128 - 13)}…`)
    expect(context.option).toBe('12.5 USD\\u{202E}C on eip155:8453 (opt_1)')
  })

  it('accepts params as an array as well as JSON text', async () => {
    const arrayParams = {
      type: 'walletRpc',
      data: { chain_id: 'eip155:8453', method: 'personal_sign', params: ['0x01', evmAddress] },
    }
    const { client, executed } = payClientFixture({
      options: [
        {
          status: 200,
          body: optionsBody([
            {
              id: 'opt_1',
              account: `eip155:8453:${evmAddress}`,
              amount: usdcOnBase('1'),
              actions: [arrayParams],
            },
          ]),
        },
      ],
      confirm: [succeeded],
    })
    await client.pay('pay_1', 'opt_1')
    expect(executed[0]!.params).toEqual(['0x01', evmAddress])
  })

  it('stops at the first refused action: nothing after it runs and nothing is confirmed', async () => {
    const { client, gateway, executed } = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption()]) }],
        fetch: [fetched],
        confirm: [succeeded],
      },
      { approve: (review) => review.method !== 'eth_signTypedData_v4' },
    )
    const error = await client.pay('pay_1', 'opt_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayActionError)
    expect(error).toMatchObject({ code: 'action_failed', actionIndex: 1, rpcError: { code: 5000 } })
    expect(executed.map((call) => call.method)).toEqual(['eth_sendTransaction'])
    expect(gateway.calls('confirm')).toHaveLength(0)
  })

  it('refuses an unavailable option before fetching or signing anything', async () => {
    const solana = {
      id: 'opt_sol',
      actions: [
        walletRpcAction('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana_signTransaction', ['AQ==']),
      ],
    }
    const { client, gateway, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([solana]) }],
    })
    const error = await client.pay('pay_1', 'opt_sol').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OptionUnavailableError)
    expect(error).toMatchObject({ code: 'option_unavailable' })
    await expect(client.pay('pay_1', 'opt_missing')).rejects.toMatchObject({ code: 'option_unavailable' })
    expect(executed).toHaveLength(0)
    expect(gateway.calls('fetch')).toHaveLength(0)
  })

  it('refuses a build that resolves onto a chain the wallet lacks, before signing anything', async () => {
    const { client, executed, gateway } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [{ status: 200, body: { actions: [walletRpcAction('eip155:1', 'eth_signTypedData_v4', [])] } }],
    })
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeInstanceOf(OptionUnavailableError)
    expect(executed).toHaveLength(0)
    expect(gateway.calls('confirm')).toHaveLength(0)
  })

  it('refuses a build that resolves into another build', async () => {
    const { client, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [{ status: 200, body: { actions: [{ type: 'build', data: { data: 'again' } }] } }],
    })
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeInstanceOf(PayProtocolError)
    expect(executed).toHaveLength(0)
  })

  it('reuses options from getOptions instead of fetching them again', async () => {
    const { client, gateway } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
      confirm: [succeeded],
    })
    const options = await client.getOptions('pay_1', { includePaymentInfo: true })
    await client.pay('pay_1', 'opt_1', { options })
    expect(gateway.calls('options')).toHaveLength(1)
  })

  it('returns a final failed status as the result', async () => {
    const { client } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
      confirm: [{ status: 200, body: { status: 'failed', isFinal: true } }],
    })
    await expect(client.pay('pay_1', 'opt_1')).resolves.toMatchObject({ status: 'failed' })
  })

  it('turns long polling off with maxPollMs 0 and gives up after the poll budget', async () => {
    const { client, gateway } = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption()], {}, 1_900_000_000) }],
        fetch: [fetched],
        confirm: [processing],
      },
      { maxPollMs: 0, pollTimeoutMs: 3_000 },
    )
    const error = await client.pay('pay_1', 'opt_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayTimeoutError)
    expect(error).toMatchObject({ code: 'poll_timeout', lastStatus: 'processing' })
    expect(gateway.calls('confirm')[0]!.url.searchParams.has('maxPollMs')).toBe(false)
    expect(gateway.calls('status')[0]!.url.searchParams.has('maxPollMs')).toBe(false)
    // One confirm, then status polls 750 ms apart until 3 s have passed: 0, 750, 1500, 2250, 3000.
    expect(gateway.calls('confirm')).toHaveLength(1)
    expect(gateway.calls('status')).toHaveLength(4)
  })
})

describe('expiry (rule 10) and the 410/409 answers', () => {
  it('blocks submission once expiresAt has passed on the injected clock: nothing fetched, nothing signed', async () => {
    const { client, gateway, executed, time } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
      confirm: [succeeded],
    })
    const options = await client.getOptions('pay_1', { includePaymentInfo: true })
    time.state.now = 1_800_000_600_000
    expect(client.remainingMs(options)).toBe(0)
    const error = await client.pay('pay_1', 'opt_1', { options }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PaymentExpiredError)
    expect(error).toMatchObject({ code: 'payment_expired', status: undefined })
    expect(executed).toHaveLength(0)
    expect(gateway.calls('fetch')).toHaveLength(0)
  })

  it('an approval given after the payment expired signs nothing: the wallet refuses the action (8000)', async () => {
    const fixture = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption()]) }],
        fetch: [fetched],
        confirm: [succeeded],
      },
      {
        approve: () => {
          // The user takes eleven minutes over the first approval.
          fixture.time.state.now += 11 * 60_000
          return true
        },
      },
    )
    const error = await fixture.client.pay('pay_1', 'opt_1').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(PayActionError)
    expect(error).toMatchObject({ actionIndex: 0, rpcError: { code: 8000 } })
    expect(fixture.executed).toEqual([])
    expect(fixture.gateway.calls('confirm')).toHaveLength(0)
  })

  it('an option that expires before the payment: its own expiry is what the wallet is given', async () => {
    const fixture = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption('opt_1', { expiresAt: 1_800_000_060 })]) }],
        fetch: [fetched],
        confirm: [succeeded],
      },
      {
        approve: () => {
          fixture.time.state.now += 2 * 60_000
          return true
        },
      },
    )
    await expect(fixture.client.pay('pay_1', 'opt_1')).rejects.toMatchObject({ rpcError: { code: 8000 } })
    expect(fixture.executed).toEqual([])
  })

  it('stops between actions when the payment expires while the user is approving, on the client’s clock too', async () => {
    const fixture = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption()]) }],
        fetch: [fetched],
        confirm: [succeeded],
      },
      {
        // A wallet whose clock does not see the expiry: the client's own check stops the next action.
        clock: () => 1_800_000_000_000,
        approve: () => {
          fixture.time.state.now += 11 * 60_000
          return true
        },
      },
    )
    await expect(fixture.client.pay('pay_1', 'opt_1')).rejects.toBeInstanceOf(PaymentExpiredError)
    expect(fixture.executed.map((call) => call.method)).toEqual(['eth_sendTransaction'])
    expect(fixture.gateway.calls('confirm')).toHaveLength(0)
  })

  it('honours an option expiresAt earlier than the payment', async () => {
    const { client, executed, time } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption('opt_1', { expiresAt: 1_800_000_060 })]) }],
    })
    const options = await client.getOptions('pay_1', { includePaymentInfo: true })
    expect(client.remainingMs(options)).toBe(600_000)
    expect(client.remainingMs(options, 'opt_1')).toBe(60_000)
    time.state.now = 1_800_000_060_000
    expect(client.remainingMs(options, 'opt_1')).toBe(0)
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeInstanceOf(PaymentExpiredError)
    expect(executed).toHaveLength(0)
  })

  it('410 from fetch: the payment expired (final), nothing signed, no retry', async () => {
    const { client, gateway, executed } = payClientFixture({
      options: [
        {
          status: 200,
          body: optionsBody([usdcOption('opt_1', { actions: [{ type: 'build', data: { data: 'b' } }] })]),
        },
      ],
      fetch: [{ status: 410, body: { code: 'payment_expired', message: 'Payment expired' } }],
    })
    const error = await client.pay('pay_1', 'opt_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PaymentExpiredError)
    expect(error).toMatchObject({ status: 410, code: 'payment_expired', shortMessage: 'Payment expired' })
    expect(executed).toHaveLength(0)
    expect(gateway.calls('fetch')).toHaveLength(1)
  })

  it('409 on confirm: options are fetched again once and the renewed option is paid', async () => {
    const renewed = usdcOption('opt_2')
    const { client, gateway, executed } = payClientFixture({
      options: [
        { status: 200, body: optionsBody([usdcOption('opt_1')]) },
        { status: 200, body: optionsBody([renewed]) },
      ],
      fetch: [fetched],
      confirm: [{ status: 409, body: { code: 'route_expired', message: 'Route expired' } }, succeeded],
    })
    const result = await client.pay('pay_1', 'opt_1')
    expect(result).toMatchObject({ status: 'succeeded', optionId: 'opt_2' })
    const optionCalls = gateway.calls('options')
    expect(optionCalls).toHaveLength(2)
    expect(optionCalls[1]!.body).toEqual(optionCalls[0]!.body)
    expect(gateway.calls('fetch').map((call) => call.body)).toEqual([
      { optionId: 'opt_1', data: 'build-opt_1' },
      { optionId: 'opt_2', data: 'build-opt_2' },
    ])
    expect((gateway.calls('confirm')[1]!.body as { optionId: string }).optionId).toBe('opt_2')
    // The fresh route's actions were signed afresh.
    expect(executed).toHaveLength(4)
  })

  it('409 while polling an accepted confirm: reported, never re-signed', async () => {
    const { client, gateway, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption('opt_1')]) }],
      fetch: [fetched],
      confirm: [processing, { status: 409, body: { code: 'route_expired', message: 'Route expired' } }],
    })
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeInstanceOf(RouteExpiredError)
    expect(gateway.calls('options')).toHaveLength(1)
    expect(executed).toHaveLength(2)
  })

  it('409 twice: the refetch happens once, then RouteExpiredError', async () => {
    const { client, gateway } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption('opt_1')]) }],
      fetch: [{ status: 409, body: { code: 'route_expired', message: 'Route expired' } }],
    })
    const error = await client.pay('pay_1', 'opt_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RouteExpiredError)
    expect(error).toMatchObject({ status: 409, code: 'route_expired' })
    expect(gateway.calls('options')).toHaveLength(2)
    expect(gateway.calls('fetch')).toHaveLength(2)
  })
})

describe('formatAmount (what the approval shows)', () => {
  it.each([
    [{ unit: 'iso4217/USD', value: '1250', display: { assetSymbol: 'USD', decimals: 2 } }, '12.5 USD'],
    [{ unit: 'iso4217/JPY', value: '500', display: { assetSymbol: 'JPY', decimals: 0 } }, '500 JPY'],
    [{ unit: 'caip19/x', value: '5', display: { assetSymbol: 'USDC', decimals: 6 } }, '0.000005 USDC'],
    [{ unit: 'caip19/x', value: '0', display: { assetSymbol: 'USDC', decimals: 6 } }, '0 USDC'],
    [{ unit: 'iso4217/EUR', value: '100' }, '100 EUR (minor units)'],
    [
      { unit: 'iso4217/EUR', value: '-1', display: { assetSymbol: 'EUR', decimals: 2 } },
      '-1 EUR (minor units)',
    ],
  ])('%j → %s', (amount, text) => {
    expect(formatAmount(amount)).toBe(text)
  })
})

describe('cancellation (hooks.signal)', () => {
  it('an aborted signal stops before anything is asked or sent', async () => {
    const { client, gateway, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
    })
    const controller = new AbortController()
    controller.abort()
    const error = await client.pay('pay_1', 'opt_1', { signal: controller.signal }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayAbortedError)
    expect(error).toMatchObject({ code: 'aborted' })
    expect(gateway.requests).toHaveLength(0)
    expect(executed).toHaveLength(0)
  })

  it('aborting while the user approves stops before the next action; nothing is confirmed', async () => {
    const controller = new AbortController()
    const { client, gateway, executed } = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([usdcOption()]) }],
        fetch: [fetched],
        confirm: [succeeded],
      },
      {
        approve: () => {
          controller.abort()
          return true
        },
      },
    )
    await expect(client.pay('pay_1', 'opt_1', { signal: controller.signal })).rejects.toBeInstanceOf(
      PayAbortedError,
    )
    expect(executed.map((call) => call.method)).toEqual(['eth_sendTransaction'])
    expect(gateway.calls('confirm')).toHaveLength(0)
  })

  it('aborting ends a long poll at once and is not retried', async () => {
    const controller = new AbortController()
    let confirms = 0
    const gateway = scriptedGateway({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
    })
    const fetch = async (url: string, init: RequestInit): Promise<Response> => {
      if (!url.includes('/confirm')) return gateway.fetch(url, init)
      confirms++
      // The gateway holds the long poll; the wallet's user cancels meanwhile.
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason))
        controller.abort()
      })
    }
    const time = fakeTime()
    const client = createPayClient({
      baseUrl: 'https://api.pay.example.com',
      apiKey: 'svc_test_key',
      wallet: fakeWallet().wallet,
      fetch,
      clock: time.clock,
      sleep: time.sleep,
    })
    await expect(client.pay('pay_1', 'opt_1', { signal: controller.signal })).rejects.toBeInstanceOf(
      PayAbortedError,
    )
    expect(confirms).toBe(1)
    expect(time.state.sleeps).toEqual([])
  })
})

describe('pay: one payment, one effect (the request journal)', () => {
  it('a pay run again after its confirm was lost replays each action instead of signing and sending again', async () => {
    const { client, gateway, executed, reviews } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched],
      // The first confirm never gets through (the app closed, the network dropped): the actions were done.
      confirm: [{ status: 400, body: { code: 'bad_request', message: 'try again' } }, succeeded],
    })
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeDefined()
    expect(executed).toHaveLength(2)
    const result = await client.pay('pay_1', 'opt_1')
    expect(result.status).toBe('succeeded')
    // The same two actions' answers, unasked: nothing signed or sent twice.
    expect(executed).toHaveLength(2)
    expect(reviews).toHaveLength(2)
    const [first, second] = gateway.calls('confirm').map((call) => call.body as { results: unknown })
    expect(second!.results).toEqual(first!.results)
  })

  it('refuses a second, different action in the place of one this wallet already signed for the payment', async () => {
    const other = { status: 200, body: { actions: [walletRpcAction('eip155:8453', 'personal_sign', [])] } }
    const { client, executed } = payClientFixture({
      options: [{ status: 200, body: optionsBody([usdcOption()]) }],
      fetch: [fetched, other],
      confirm: [{ status: 400, body: { code: 'bad_request', message: 'try again' } }, succeeded],
    })
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeDefined()
    const refused = await client.pay('pay_1', 'opt_1').then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(PayActionError)
    // The approval transaction (action 1) replays; the signature in its place (action 2) is another one: refused.
    expect(refused).toMatchObject({
      actionIndex: 1,
      rpcError: { code: -32600, data: { rule: 'journal.key_reused' } },
    })
    expect(executed).toHaveLength(2)
  })
})

describe('pay: one payment, its actions counted together', () => {
  const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
  /** Each typed-data action decodes as a TransferWithAuthorization of the whole 12.5 USDC. */
  const wholeAmount = (chainId: string, method: string) =>
    method === 'eth_signTypedData_v4'
      ? [
          {
            chainId,
            account: evmAddress,
            asset: usdc,
            amount: 12_500_000n,
            recipient: '0x000000000000000000000000000000000000bEEF',
            kind: 'transfer' as const,
            form: 'EIP-3009 TransferWithAuthorization',
          },
        ]
      : []

  it('refuses a second action that pays the option again: two actions cannot each pay it all', async () => {
    const twice = usdcOption('opt_1', { actions: [typedDataAction, typedDataAction] })
    const { client, executed, reviews } = payClientFixture(
      {
        options: [{ status: 200, body: optionsBody([twice]) }],
        confirm: [succeeded],
      },
      { effects: wholeAmount },
    )
    const refused = await client.pay('pay_1', 'opt_1').then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toMatchObject({
      actionIndex: 1,
      rpcError: { code: -32602, data: { rule: 'pay.amount_mismatch' } },
    })
    expect(String((refused as { rpcError: { data: { reason: string } } }).rpcError.data.reason)).toContain(
      "transfers 12.5 USDC to 0x000000000000000000000000000000000000bEEF (EIP-3009 TransferWithAuthorization), so with the payment's earlier requests (up to 12.5 USDC) it can take up to 25 USDC.",
    )
    expect(executed).toHaveLength(1)
    expect(reviews).toHaveLength(1)
  })

  it('an option asking more than the payment info shows in the same token: the action that pays it is refused', async () => {
    const option = usdcOption('opt_1', { actions: [typedDataAction] })
    // The payment shows 12 USDC; the option (and its action) 12.5. The unit differs only in case.
    const shown = { ...usdcOnBase('12000000'), unit: usdcOnBase('0').unit.toLowerCase() }
    const body = optionsBody([option], { info: { ...optionsBody([]).info, amount: shown } })
    const { client, executed } = payClientFixture(
      { options: [{ status: 200, body }], confirm: [succeeded] },
      { effects: wholeAmount },
    )
    const refused = await client.pay('pay_1', 'opt_1').catch((error: unknown) => error)
    expect(refused).toMatchObject({
      actionIndex: 0,
      rpcError: {
        data: {
          rule: 'pay.amount_mismatch',
          reason:
            'The payment gateway shows 12 USDC; this request transfers 12.5 USDC to 0x000000000000000000000000000000000000bEEF (EIP-3009 TransferWithAuthorization).',
        },
      },
    })
    expect(executed).toEqual([])
  })

  it('a payment info amount in a currency, or not below the option’s, leaves the option’s amount to compare', async () => {
    for (const amount of [usd('1200'), usdcOnBase('12500000'), usdcOnBase('13000000')]) {
      const option = usdcOption('opt_1', { actions: [typedDataAction] })
      const body = optionsBody([option], { info: { ...optionsBody([]).info, amount } })
      const { client } = payClientFixture(
        { options: [{ status: 200, body }], confirm: [succeeded] },
        { effects: wholeAmount },
      )
      expect(await client.pay('pay_1', 'opt_1')).toMatchObject({ status: 'succeeded' })
    }
  })

  it('executePayActions (the official client’s actions) compares with the payment info too, and passes its expiry', async () => {
    const { wallet, executed } = fakeWallet({ effects: wholeAmount, clock: fakeTime().clock })
    const action = typedDataAction.data
    const actions = [
      { walletRpc: { ...action, chainId: action.chain_id, params: JSON.stringify(action.params) } },
    ]
    const run = (extra: { paymentAmount?: { unit: string; value: string }; expiresAt?: number }) =>
      executePayActions(wallet, actions, {
        paymentId: 'pay_1',
        optionId: 'opt_1',
        option: usdcOption(),
        origin: 'https://wallet.example',
        ...extra,
      }).catch((error: unknown) => error)
    expect(await run({ paymentAmount: usdcOnBase('12000000') })).toMatchObject({
      rpcError: { data: { rule: 'pay.amount_mismatch' } },
    })
    expect(await run({ expiresAt: 1_799_999_999 })).toMatchObject({ rpcError: { code: 8000 } })
    expect(executed).toEqual([])
    expect(await run({ paymentAmount: usdcOnBase('12500000'), expiresAt: 1_800_000_600 })).toEqual([
      expect.stringMatching(/^0x/),
    ])
  })

  it('counts an action the journal replays too (pay run again after a crash between the two)', async () => {
    const twice = usdcOption('opt_1', { actions: [typedDataAction, typedDataAction] })
    let calls = 0
    const { client, executed } = payClientFixture(
      { options: [{ status: 200, body: optionsBody([twice]) }], confirm: [succeeded] },
      {
        effects: wholeAmount,
        // The first run's second action never gets an answer (the app closed while the user looked at it).
        approve: () => ++calls !== 2,
      },
    )
    await expect(client.pay('pay_1', 'opt_1')).rejects.toBeDefined()
    const refused = await client.pay('pay_1', 'opt_1').then(
      () => undefined,
      (error: unknown) => error,
    )
    // Action 1 replays from the journal (unasked, counted), action 2 would pay it all again: refused.
    expect(refused).toMatchObject({ actionIndex: 1, rpcError: { data: { rule: 'pay.amount_mismatch' } } })
    expect(executed).toHaveLength(1)
  })
})
