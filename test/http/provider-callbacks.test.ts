import { afterAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { createProviders } from '../../src/channels/registry'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp } from '../helpers/app'
import { jsonOf, rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'

// SMS through the Twilio-compatible adapter to a local server that speaks Twilio's Messages API,
// then delivery reports posted back to Herald's status callback, signed as Twilio signs them.

const SID = 'AC0123456789abcdef0123456789abcdef'
const TOKEN = 'twilio-test-auth-token'
const posted: URLSearchParams[] = []
const twilio = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const url = new URL(req.url)
    if (req.method !== 'POST' || url.pathname !== `/2010-04-01/Accounts/${SID}/Messages.json`)
      return Response.json({ code: 20404, message: 'not found' }, { status: 404 })
    if (req.headers.get('authorization') !== `Basic ${btoa(`${SID}:${TOKEN}`)}`)
      return Response.json({ code: 20003, message: 'Authenticate' }, { status: 401 })
    const form = new URLSearchParams(await req.text())
    posted.push(form)
    return Response.json(
      { sid: `SM${String(posted.length).padStart(32, '0')}`, status: 'queued' },
      { status: 201 },
    )
  },
})
afterAll(() => twilio.stop(true))

const t = await createTestApp({
  env: {
    HERALD_SMS_PROVIDER: 'twilio',
    HERALD_TWILIO_BASE_URL: `http://127.0.0.1:${twilio.port}`,
    HERALD_TWILIO_ACCOUNT_SID: SID,
    HERALD_TWILIO_AUTH_TOKEN: TOKEN,
    HERALD_TWILIO_FROM: '+14155550100',
  },
})
const worker = startSendWorker(t.ctx, sendDeps, {
  providers: createProviders(t.ctx.config, createFeedback(t.ctx)),
  pollMs: 10,
})
afterAll(() => worker.stop())

const CALLBACK = 'http://localhost:8080/api/v1/inbound/twilio/status'
const sign = (params: Record<string, string>, token = TOKEN) =>
  createHmac('sha1', token)
    .update(
      CALLBACK +
        Object.keys(params)
          .sort()
          .map((k) => k + params[k])
          .join(''),
    )
    .digest('base64')
const callback = (params: Record<string, string>, signature = sign(params)) =>
  t.app.handle(
    new Request(CALLBACK, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params).toString(),
    }),
  )

const clientId = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId })
const call = async (method: string, path: string, body?: unknown) =>
  (await t.call(method, path, { key, body })).body.data
const list = await call('POST', '/api/v1/lists', { name: 'Phones' })
const people: [string, string | undefined][] = [
  ['ann@example.com', '+33 6 12 34 56 78'],
  ['bob@example.com', '+1 415 555 0199'],
  ['nophone@example.com', undefined],
]
for (const [email, phone] of people)
  await call('POST', '/api/v1/contacts', {
    email,
    phone,
    first_name: email.split('@')[0],
    list_ids: [list.id],
  })
const campaign = await call('POST', '/api/v1/campaigns', {
  name: 'SMS',
  channel: 'sms',
  list_id: list.id,
  body_text: 'Hi {{ contact.first_name }}, spring sale today.',
})
await call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
await eventually(async () =>
  expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).status).toBe('sent'),
)
const msgs = (await call('GET', `/api/v1/messages?campaign_id=${campaign.id}`)) as Record<string, string>[]
const byTo = Object.fromEntries(msgs.map((m) => [m.to, m]))

describe('SMS through the Twilio adapter', () => {
  test('each phone got its personalised text with our status callback; no phone → skipped', () => {
    expect(posted.map((f) => f.get('To')).sort()).toEqual(['+14155550199', '+33612345678'])
    const ann = posted.find((f) => f.get('To') === '+33612345678')!
    expect(ann.get('Body')).toBe('Hi ann, spring sale today.')
    expect(ann.get('From')).toBe('+14155550100')
    expect(ann.get('StatusCallback')).toBe(CALLBACK)
    expect(byTo['+33612345678']).toMatchObject({ status: 'sent', provider: 'twilio' })
    expect(byTo['+33612345678']!.provider_message_id).toMatch(/^SM\d{32}$/)
    expect(msgs.find((m) => m.skip_reason === 'no_phone')).toBeDefined()
  })

  test('a signed "delivered" callback marks the message delivered and records the event', async () => {
    const m = byTo['+33612345678']!
    const r = await callback({
      MessageSid: m.provider_message_id!,
      MessageStatus: 'delivered',
      AccountSid: SID,
    })
    expect(r.status).toBe(204)
    expect((await call('GET', `/api/v1/messages/${m.id}`)).status).toBe('delivered')
    const [e] = await rowsOf<{ data: unknown }>(
      t,
      sql`SELECT data FROM events WHERE type = 'email.delivered' AND message_id = ${m.id}`,
    )
    expect(jsonOf(e!.data)).toMatchObject({ channel: 'sms', email: 'ann@example.com' })
    expect(await call('GET', `/api/v1/campaigns/${campaign.id}/stats`)).toMatchObject({
      sent: 2,
      delivered: 1,
    })
    // Twilio may repeat a callback: nothing is counted twice.
    await callback({ MessageSid: m.provider_message_id!, MessageStatus: 'delivered', AccountSid: SID })
    expect(await call('GET', `/api/v1/campaigns/${campaign.id}/stats`)).toMatchObject({ delivered: 1 })
  })

  test('an "undelivered" callback fails the message with Twilio’s error', async () => {
    const m = byTo['+14155550199']!
    await callback({ MessageSid: m.provider_message_id!, MessageStatus: 'undelivered', ErrorCode: '30003' })
    expect(await call('GET', `/api/v1/messages/${m.id}`)).toMatchObject({
      status: 'failed',
      error: '30003 undelivered',
    })
  })

  test('a wrong or missing signature is 403 and changes nothing; an unknown SID is acknowledged', async () => {
    const params = { MessageSid: byTo['+33612345678']!.provider_message_id!, MessageStatus: 'failed' }
    expect((await callback(params, sign(params, 'another-token'))).status).toBe(403)
    expect((await callback(params, '')).status).toBe(403)
    expect((await call('GET', `/api/v1/messages/${byTo['+33612345678']!.id}`)).status).toBe('delivered')
    expect((await callback({ MessageSid: `SM${'9'.repeat(32)}`, MessageStatus: 'delivered' })).status).toBe(
      204,
    )
  })

  test("a body over 64 KiB is 413; without a Twilio provider of the instance's the route refuses what no token signed", async () => {
    const big = await t.app.handle(
      new Request(CALLBACK, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' },
        body: `Body=${'a'.repeat(70 * 1024)}`,
      }),
    )
    expect(big.status).toBe(413)
    expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
    // Served all the same: clients' own Twilio accounts report there, naming the client.
    const plain = await createTestApp()
    for (const url of [CALLBACK, `${CALLBACK}?client=nobody`]) {
      const r = await plain.app.handle(
        new Request(url, { method: 'POST', headers: { 'x-twilio-signature': sign({}, TOKEN) }, body: '' }),
      )
      expect(r.status).toBe(403)
    }
  })
})
