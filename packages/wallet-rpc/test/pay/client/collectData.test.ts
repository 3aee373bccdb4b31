import { describe, expect, it } from 'vitest'
import { CollectDataError, collectDataRequirement } from '../../../src/pay/index.js'
import { optionsBody, payClientFixture, type Reply, typedDataAction, usdcOption } from './fakes.js'

const url = 'https://pay.walletconnect.com/collect/opt_1'
const schema = {
  type: 'object',
  properties: { fullName: { type: 'string' }, dob: { type: 'string', format: 'date' } },
  required: ['fullName', 'dob'],
}

describe('collectData truth table (rule 7)', () => {
  const responseLevel = { fields: [{ id: 'fullName', name: 'Full name', type: 'text', required: true }] }
  const optionLevel = { url, schema }

  it('response-level and option-level both present: required, with the option url', () => {
    expect(collectDataRequirement(responseLevel, optionLevel)).toEqual({
      required: true,
      url,
      schema,
      fields: responseLevel.fields,
    })
  })

  it('the option url only, its form falling back to the response-level fields', () => {
    expect(collectDataRequirement(responseLevel, { url })).toEqual({
      required: true,
      url,
      schema: undefined,
      fields: responseLevel.fields,
    })
  })

  it('response-level present, option-level null or absent: none needed for this option', () => {
    expect(collectDataRequirement(responseLevel, null)).toEqual({ required: false })
    expect(collectDataRequirement(responseLevel, undefined)).toEqual({ required: false })
  })

  it('both null or absent: none needed', () => {
    expect(collectDataRequirement(null, null)).toEqual({ required: false })
    expect(collectDataRequirement(undefined, undefined)).toEqual({ required: false })
  })

  it('the row rule 7 leaves open (only the option has it): required, the option object rules', () => {
    expect(collectDataRequirement(null, { schema: JSON.stringify(schema) })).toEqual({
      required: true,
      url: undefined,
      schema,
      fields: [],
    })
  })
})

function setup(options: unknown[], extra: Record<string, unknown> = {}) {
  const script: Record<string, Reply[]> = {
    options: [{ status: 200, body: optionsBody(options, extra) }],
    fetch: [{ status: 200, body: { actions: [typedDataAction] } }],
    confirm: [{ status: 200, body: { status: 'succeeded', isFinal: true } }],
  }
  return payClientFixture(script)
}

const collecting = usdcOption('opt_1', { collectData: { url, schema } })
const topLevel = { collectData: { fields: [] } }

describe('pay with data collection', () => {
  it('web view: shown before anything is signed; IC_COMPLETE → confirm without collectedData', async () => {
    const { client, gateway, executed } = setup([collecting], topLevel)
    const seen: { url: string; signedBefore: number }[] = []
    const result = await client.pay('pay_1', 'opt_1', {
      webView: async (request) => {
        seen.push({ url: request.url, signedBefore: executed.length })
        return { type: 'IC_COMPLETE', success: true }
      },
      collectData: async () => {
        throw new Error('the form must not be used when the web view is available')
      },
    })
    expect(result.status).toBe('succeeded')
    expect(seen).toEqual([{ url, signedBefore: 0 }])
    const body = gateway.calls('confirm')[0]!.body as Record<string, unknown>
    expect(body).not.toHaveProperty('collectedData')
    expect(executed).toHaveLength(2)
  })

  it('web view IC_ERROR: nothing signed, nothing confirmed', async () => {
    const { client, gateway, executed } = setup([collecting], topLevel)
    const error = await client
      .pay('pay_1', 'opt_1', { webView: async () => ({ type: 'IC_ERROR', error: 'document rejected' }) })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CollectDataError)
    expect(error).toMatchObject({ code: 'collect_data_failed' })
    expect((error as Error).message).toContain('document rejected')
    expect(executed).toHaveLength(0)
    expect(gateway.calls('confirm')).toHaveLength(0)
  })

  it('schema path: the form values go to confirm as collectedData', async () => {
    const { client, gateway } = setup([collecting], topLevel)
    const asked: unknown[] = []
    await client.pay('pay_1', 'opt_1', {
      collectData: async (request) => {
        asked.push(request.schema)
        return { fullName: 'John Smith', dob: '1990-01-01' }
      },
    })
    expect(asked).toEqual([schema])
    expect(gateway.calls('confirm')[0]!.body).toMatchObject({
      optionId: 'opt_1',
      collectedData: {
        fields: [
          { id: 'fullName', value: 'John Smith' },
          { id: 'dob', value: '1990-01-01' },
        ],
      },
    })
  })

  it('schema path: a missing required field or an unknown one is refused before signing', async () => {
    for (const values of [
      { fullName: 'John Smith' },
      { fullName: 'J', dob: '1990-01-01', ssn: '1' },
      { fullName: 'J', dob: 1 },
    ]) {
      const { client, executed } = setup([collecting], topLevel)
      const error = await client
        .pay('pay_1', 'opt_1', { collectData: async () => values as Record<string, string> })
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'CollectDataError', code: 'collect_data_failed' })
      expect(executed).toHaveLength(0)
    }
  })

  it('fields list (no schema): required fields must be filled', async () => {
    const option = usdcOption('opt_1', {
      collectData: { fields: [{ id: 'email', name: 'Email', type: 'text', required: true }] },
    })
    const { client, gateway } = setup([option], topLevel)
    await client.pay('pay_1', 'opt_1', { collectData: async () => ({ email: 'a@b.c' }) })
    expect(gateway.calls('confirm')[0]!.body).toMatchObject({
      collectedData: { fields: [{ id: 'email', value: 'a@b.c' }] },
    })
  })

  it('required but no hook: collect_data_required, nothing signed', async () => {
    const { client, executed, gateway } = setup([collecting], topLevel)
    const error = await client.pay('pay_1', 'opt_1').catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'CollectDataError', code: 'collect_data_required' })
    expect(executed).toHaveLength(0)
    expect(gateway.calls('fetch')).toHaveLength(0)
  })

  it('response-level present but the option has none: no hook is called and no collectedData is sent', async () => {
    const { client, gateway } = setup([usdcOption('opt_1', { collectData: null })], topLevel)
    let called = false
    await client.pay('pay_1', 'opt_1', {
      webView: async () => {
        called = true
        return 'IC_COMPLETE'
      },
      collectData: async () => {
        called = true
        return {}
      },
    })
    expect(called).toBe(false)
    expect(gateway.calls('confirm')[0]!.body).not.toHaveProperty('collectedData')
  })

  it('getOptions reports each option requirement', async () => {
    const { client } = setup([collecting, usdcOption('opt_2')], topLevel)
    const { options } = await client.getOptions('pay_1')
    expect(options.map((option) => option.dataCollection.required)).toEqual([true, false])
  })
})
