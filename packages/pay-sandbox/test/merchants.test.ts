import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, expectError } from './helpers.js'

let sandbox: PaySandbox
let call: ReturnType<typeof api>

beforeAll(async () => {
  sandbox = await startPaySandbox()
  call = api(sandbox)
})
afterAll(() => sandbox.stop())

describe('POST /v1/merchants', () => {
  it('creates a merchant with the spec fields', async () => {
    const reply = await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': randomUUID() },
      body: { merchantName: 'Coffee Shop', merchantEmail: 'owner@coffee.example' },
    })
    expect(reply.status).toBe(201)
    expect(reply.body.merchant).toEqual({
      id: expect.stringMatching(/^mrch_[A-Za-z0-9]{24}$/),
      name: 'Coffee Shop',
      email: 'owner@coffee.example',
      status: 'active',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    })
    expect(reply.headers.get('pay-version')).toBe('2026-02-18')
  })

  it('a replay with the same Idempotency-Key returns the original and creates no duplicate', async () => {
    const key = randomUUID()
    const body = { merchantName: 'Bakery', merchantEmail: 'bakery@example.com' }
    const first = await call('POST', '/v1/merchants', { headers: { 'idempotency-key': key }, body })
    const before = (await call('GET', '/v1/merchants')).body.data.length
    const replay = await call('POST', '/v1/merchants', { headers: { 'idempotency-key': key }, body })
    expect(replay.status).toBe(first.status)
    expect(replay.body).toEqual(first.body)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    const after = (await call('GET', '/v1/merchants')).body.data
    expect(after.length).toBe(before)
    expect(after.filter((merchant: { name: string }) => merchant.name === 'Bakery')).toHaveLength(1)
  })

  it('the same key with another body is 409 idempotency_key_reused', async () => {
    const key = randomUUID()
    await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': key },
      body: { merchantName: 'A', merchantEmail: 'a@example.com' },
    })
    const reply = await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': key },
      body: { merchantName: 'B', merchantEmail: 'b@example.com' },
    })
    expectError(reply, 409, 'idempotency_key_reused')
  })

  it('a missing Idempotency-Key is 400 params_validation naming the header', async () => {
    const reply = await call('POST', '/v1/merchants', {
      body: { merchantName: 'A', merchantEmail: 'a@example.com' },
    })
    expectError(reply, 400, 'params_validation')
    expect(reply.body.issues).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }])
  })

  it('an invalid body is 400 params_validation with one issue per field, and is not remembered', async () => {
    const key = randomUUID()
    const reply = await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': key },
      body: { merchantName: '', merchantEmail: 'not-an-email' },
    })
    expectError(reply, 400, 'params_validation')
    expect(reply.body.issues.map((issue: { field: string }) => issue.field).sort()).toEqual([
      'merchantEmail',
      'merchantName',
    ])
    const retry = await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': key },
      body: { merchantName: 'Fixed', merchantEmail: 'fixed@example.com' },
    })
    expect(retry.status).toBe(201)
  })
})

describe('GET /v1/merchants', () => {
  it('lists the start-up merchant in data', async () => {
    const reply = await call('GET', '/v1/merchants')
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((merchant: { id: string }) => merchant.id)).toContain(sandbox.merchantId)
  })
})

describe('crypto settlements', () => {
  const asset = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
  it('creates, refuses a second entry for the same asset (settlement_asset_conflict), updates the destination', async () => {
    const path = `/v1/merchants/${sandbox.merchantId}/settlements/crypto`
    const destination = 'eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const created = await call('POST', path, {
      headers: { 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination }] },
    })
    expect(created.status).toBe(201)
    const id = created.body.settlements[0].id as string
    const conflict = await call('POST', path, { body: { settlements: [{ asset, destination }] } })
    expectError(conflict, 409, 'settlement_asset_conflict')
    const otherChain = await call('POST', path, {
      body: {
        settlements: [{ asset: 'eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', destination }],
      },
    })
    expectError(otherChain, 400, 'params_validation')
    const moved = 'eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
    const updated = await call('PUT', `${path}/${id}`, { body: { destination: moved } })
    expect(updated.status).toBe(200)
    expect(updated.body.settlement.destination).toBe(moved)
    expect((await call('GET', path)).body.data).toEqual([
      expect.objectContaining({ id, asset, destination: moved }),
    ])
    const unknown = await call('PUT', `${path}/stl_unknown`, { body: { destination: moved } })
    expectError(unknown, 404, 'settlement_not_found')
  })

  it('an unknown merchant is 404 merchant_not_found', async () => {
    const reply = await call('GET', '/v1/merchants/mrch_unknown/settlements/crypto')
    expectError(reply, 404, 'merchant_not_found')
  })
})
