import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { eventTypes } from '../../src/model.js'
import { createPayment, serveWebhooks } from '../helpers.js'
import { dashboardClient, unescapeHtml } from './dashboardClient.js'

/** The dashboard's webhook and merchant pages over plain HTTP, against a local receiver. */
let sandbox: PaySandbox
let receiver: Awaited<ReturnType<typeof serveWebhooks>>
let receiverUrl = ''
/** What the receiver answers next; it records every body it gets. */
let answer = 500
const received: Array<{ id: string; type: string; data: Record<string, unknown> }> = []

beforeAll(async () => {
  receiver = await serveWebhooks(async (_headers, body) => {
    received.push(JSON.parse(body.toString('utf8')))
    return { status: answer }
  })
  receiverUrl = receiver.url
  // Retries 10⁶ times faster: the whole 28-hour schedule runs out in about a tenth of a second.
  sandbox = await startPaySandbox({ timeScale: 0.000001, processingMs: null, settlementMs: null })
})
afterAll(async () => {
  await sandbox.stop()
  await receiver.close()
})

describe('dashboard webhooks page', () => {
  it('sets the endpoint and its event types through the API’s rules', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const refused = await client.post('/dashboard/webhooks/endpoint', {
      csrf,
      url: 'http://example.com/x',
      events: [],
    })
    expect(refused.status).toBe(303)
    const page = await client.get('/dashboard/webhooks')
    expect(page.text).toContain('Refused (400')
    expect(page.text).toContain('<code>url</code>')
    expect(sandbox.webhooks.endpoint()).toBeNull()
    const saved = await client.post('/dashboard/webhooks/endpoint', {
      csrf,
      url: receiverUrl,
      events: ['payment.succeeded', 'payment.failed'],
    })
    expect(saved.status).toBe(303)
    expect(sandbox.webhooks.endpoint()).toMatchObject({
      url: receiverUrl,
      events: ['payment.succeeded', 'payment.failed'],
    })
    const shown = await client.get('/dashboard/webhooks')
    expect(unescapeHtml(shown.text)).toContain(`<code>${receiverUrl}</code>`)
    expect(shown.text).toMatch(/value="payment\.succeeded" checked/)
    expect(shown.text).not.toMatch(/value="payment\.created" checked/)
  })

  it('reveals the secret once, only after a POST; rotation shows the 24-hour overlap', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const page = await client.get('/dashboard/webhooks')
    expect(unescapeHtml(page.text)).not.toContain(sandbox.webhooks.secret()!)
    const revealed = await client.post('/dashboard/webhooks/secret/reveal', { csrf })
    expect(revealed.location).toBe('/dashboard/webhooks')
    const shown = unescapeHtml((await client.get('/dashboard/webhooks')).text)
    expect(shown).toContain(`<code class="secret" id="revealed-secret">${sandbox.webhooks.secret()}</code>`)
    const again = unescapeHtml((await client.get('/dashboard/webhooks')).text)
    expect(again).not.toContain(sandbox.webhooks.secret()!)
    const old = sandbox.webhooks.secret()!
    const before = Date.now()
    await client.post('/dashboard/webhooks/secret/rotate', { csrf })
    const rotated = unescapeHtml((await client.get('/dashboard/webhooks')).text)
    expect(sandbox.webhooks.secret()).not.toBe(old)
    expect(sandbox.webhooks.secrets()).toEqual([sandbox.webhooks.secret(), old])
    expect(rotated).toContain(`id="revealed-secret">${sandbox.webhooks.secret()}<`)
    const until = /keeps signing until (\S+) \(24 hours\)/.exec(rotated)![1]!
    expect(Date.parse(until) - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000)
    expect(Date.parse(until) - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000)
    // The overlap stays on the page after the one-time message.
    expect(unescapeHtml((await client.get('/dashboard/webhooks')).text)).toContain(
      `valid until <time datetime="${until}">`,
    )
  })

  it('sends a test event of a chosen type with live false', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    answer = 200
    await client.post('/dashboard/webhooks/test-event', { csrf, type: 'payment.failed' })
    await sandbox.webhooks.idle()
    const event = received.at(-1)!
    expect(event.type).toBe('payment.failed')
    expect(event.data).toMatchObject({ live: false, test_event: true })
    // A type the endpoint does not receive is reported, not silently dropped.
    await client.post('/dashboard/webhooks/test-event', { csrf, type: 'payment.created' })
    expect((await client.get('/dashboard/webhooks')).text).toContain('was not queued')
    await client.post('/dashboard/webhooks/test-event', { csrf, type: 'payment.bogus' })
    expect((await client.get('/dashboard/webhooks')).text).toContain('Refused (400')
  })

  it('lists each attempt’s status and time; resend one and bulk-resend failed deliveries', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    answer = 500
    const id = await createPayment(sandbox, 'webhook-resend')
    sandbox.control.succeed(id)
    await sandbox.webhooks.idle()
    const failed = sandbox.webhooks
      .deliveries()
      .find((delivery) => delivery.eventType === 'payment.succeeded')!
    expect(failed.state).toBe('failed')
    const page = await client.get('/dashboard/webhooks')
    const row = new RegExp(`<tr id="delivery-${failed.id}">[\\s\\S]*?</tr>`).exec(page.text)![0]
    expect(row).toContain('<td class="delivery-state">failed</td>')
    expect(row.match(/HTTP 500/g)).toHaveLength(failed.attempts.length)
    expect(row).toContain(`<time datetime="${failed.attempts[0]!.at}">`)
    answer = 200
    const count = received.length
    const resent = await client.post(`/dashboard/webhooks/deliveries/${failed.id}/resend`, { csrf })
    expect(resent.location).toBe(`/dashboard/webhooks#delivery-${failed.id}`)
    await sandbox.webhooks.idle()
    expect(received.length).toBe(count + 1)
    expect(received.at(-1)!.data.payment_id).toBe(id)
    const after = await client.get('/dashboard/webhooks')
    expect(after.text).toContain(`Delivery ${failed.id} sent again.`)
    expect(new RegExp(`<tr id="delivery-${failed.id}">[\\s\\S]*?</tr>`).exec(after.text)![0]).toContain(
      'HTTP 200',
    )
    // Bulk: two more failures, then one resend-failed since an hour ago.
    answer = 500
    for (const reference of ['bulk-1', 'bulk-2'])
      sandbox.control.fail(await createPayment(sandbox, reference))
    await sandbox.webhooks.idle()
    answer = 200
    const since = new Date(Date.now() - 3600_000).toISOString().slice(0, 16)
    await client.post('/dashboard/webhooks/resend-failed', { csrf, since })
    expect((await client.get('/dashboard/webhooks')).text).toContain('2 failed deliveries sent again.')
    await sandbox.webhooks.idle()
    expect(sandbox.webhooks.deliveries().filter((delivery) => delivery.state === 'failed')).toEqual([])
  })

  it('replays events never received, 14 days back at most', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const tooOld = new Date(Date.now() - 15 * 24 * 3600_000).toISOString().slice(0, 16)
    await client.post('/dashboard/webhooks/replay', { csrf, since: tooOld })
    expect((await client.get('/dashboard/webhooks')).text).toContain('replay reaches back at most 14 days')
    // A payment.processing event was never sent (the endpoint does not take it); subscribe, then replay.
    const id = await createPayment(sandbox, 'replay-1')
    sandbox.control.process(id)
    await client.post('/dashboard/webhooks/endpoint', {
      csrf,
      url: receiverUrl,
      events: ['payment.processing'],
    })
    const since = new Date(Date.now() - 3600_000).toISOString().slice(0, 16)
    await client.post('/dashboard/webhooks/replay', { csrf, since })
    expect((await client.get('/dashboard/webhooks')).text).toMatch(
      /[1-9]\d* events never received were queued again/,
    )
    await sandbox.webhooks.idle()
    expect(
      received.some((event) => event.type === 'payment.processing' && event.data.payment_id === id),
    ).toBe(true)
  })

  it('sends a test event of each of the seven types, each with live false', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    answer = 200
    const page = await client.get('/dashboard/webhooks')
    const offered = [...page.text.matchAll(/<option value="(payment\.[a-z]+)">/g)].map((match) => match[1])
    expect(offered).toEqual([...eventTypes])
    await client.post('/dashboard/webhooks/endpoint', { csrf, url: receiverUrl, events: [...eventTypes] })
    const count = received.length
    for (const type of eventTypes) {
      await client.post('/dashboard/webhooks/test-event', { csrf, type })
      expect((await client.get('/dashboard/webhooks')).text, type).toMatch(
        new RegExp(`Test event evt_\\w+ \\(${type.replace('.', '\\.')}, live false\\) queued`),
      )
    }
    await sandbox.webhooks.idle()
    const sent = received.slice(count)
    expect(sent.map((event) => event.type)).toEqual([...eventTypes])
    for (const event of sent) expect(event.data, event.type).toMatchObject({ live: false, test_event: true })
  })

  it('an unknown delivery is a 404 page', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const reply = await client.post('/dashboard/webhooks/deliveries/dlv_nope/resend', { csrf })
    expect(reply.status).toBe(404)
    expect(reply.text).toContain('<h1>Not found</h1>')
    expect((await client.get('/dashboard/no/such/page')).status).toBe(404)
  })
})

describe('dashboard merchants page', () => {
  it('creates a merchant once per form, even when the form is sent twice', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const form = await client.get('/dashboard/merchants')
    const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(form.text)![1]!
    const fields = {
      csrf: client.csrfOf(form),
      idempotencyKey,
      merchantName: 'Shop <b>',
      merchantEmail: 'shop@example.com',
    }
    const first = await client.post('/dashboard/merchants', fields)
    const second = await client.post('/dashboard/merchants', fields)
    expect(first.location).toMatch(/^\/dashboard\/merchants\/mrch_/)
    expect(second.location).toBe(first.location)
    const page = await client.get(first.location!)
    expect(page.text).toContain('Merchant Shop &#60;b&#62;')
    const list = await client.get('/dashboard/merchants')
    expect(list.text.match(/Shop &#60;b&#62;/g)).toHaveLength(1)
  })

  it('loads a merchant icon only from https; any other icon URL is text, escaped', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const create = async (name: string, icon: string) => {
      const form = await client.get('/dashboard/merchants')
      const reply = await client.post('/dashboard/merchants', {
        csrf: client.csrfOf(form),
        idempotencyKey: /name="idempotencyKey" value="([^"]+)"/.exec(form.text)![1]!,
        merchantName: name,
        merchantEmail: 'icons@shop.example',
        merchantIconUrl: icon,
      })
      expect(reply.location, name).toMatch(/^\/dashboard\/merchants\/mrch_/)
      return (await client.get(reply.location!)).text
    }
    const secure = await create('Secure icons', 'https://cdn.example/icon.png?a="b"&c=<d>')
    expect(secure).toContain(
      '<img class="icon" src="https://cdn.example/icon.png?a&#61;%22b%22&#38;c&#61;%3Cd%3E"',
    )
    const plain = await create('Plain icons', 'http://cdn.example/icon.png?x="><script>alert(1)</script>')
    expect(plain).not.toContain('<img class="icon"')
    expect(plain).not.toContain('<script>alert(1)')
    expect(plain).toContain(
      'not loaded (not https): <code>http://cdn.example/icon.png?x&#61;&#34;&#62;&#60;script&#62;',
    )
    const list = await client.get('/dashboard/merchants')
    expect(list.text.match(/<img class="icon"/g)).toHaveLength(1)
    expect(list.text).toContain('not loaded (not https)')
  })

  it('adds crypto settlement entries and changes a destination under the API’s rules', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const path = `/dashboard/merchants/${sandbox.merchantId}`
    const asset = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
    const destination = 'eip155:8453:0x1111111111111111111111111111111111111111'
    await client.post(`${path}/settlements`, { csrf, asset, destination })
    const [entry] = (
      await fetch(`${sandbox.url}/v1/merchants/${sandbox.merchantId}/settlements/crypto`, {
        headers: { 'api-key': sandbox.apiKey },
      }).then((reply) => reply.json() as Promise<{ data: Array<{ id: string; destination: string }> }>)
    ).data
    expect(entry!.destination).toBe(destination)
    await client.post(`${path}/settlements`, { csrf, asset, destination })
    expect((await client.get(path)).text).toContain('Refused (409 settlement_asset_conflict)')
    const otherChain = 'eip155:1:0x2222222222222222222222222222222222222222'
    await client.post(`${path}/settlements/${entry!.id}`, { csrf, destination: otherChain })
    expect((await client.get(path)).text).toContain('must be on the same chain as the asset')
    const moved = 'eip155:8453:0x3333333333333333333333333333333333333333'
    await client.post(`${path}/settlements/${entry!.id}`, { csrf, destination: moved })
    const page = unescapeHtml((await client.get(path)).text)
    expect(page).toContain('Destination changed.')
    expect(page).toContain(`<td class="mono destination">${moved}</td>`)
    // A destination with markup is refused by the API's rules and, where echoed, shown as text.
    const hostile = 'eip155:8453:"><script>alert(1)</script>'
    await client.post(`${path}/settlements/${entry!.id}`, { csrf, destination: hostile })
    const refused = (await client.get(path)).text
    expect(refused).toContain('Refused (400')
    expect(refused).not.toContain('<script>alert(1)')
    expect(refused).not.toContain('"><script')
    expect(unescapeHtml(refused)).toContain(`<td class="mono destination">${moved}</td>`)
    expect((await client.post(`${path}/settlements/stl_nope`, { csrf, destination: moved })).status).toBe(404)
    expect((await client.get('/dashboard/merchants/mrch_nope')).status).toBe(404)
  })
})
