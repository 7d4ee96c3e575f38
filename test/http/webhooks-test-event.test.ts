import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { createTestApp } from '../helpers/app'
import { startReceiver } from '../helpers/receiver'
import { scenarios } from '../helpers/scenarios'

// POST /webhooks/{id}/test: the spec only says "a test event can be sent to a registered webhook",
// so a bare POST (no body, or {}) sends the webhook's first subscribed event; `event` picks another.
// The acceptance review found the bare POST refused with 422 "event: is required".

const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
const receiver = startReceiver()
afterAll(() => receiver.close())
const key = await t.key({ scopes: [], clientId: await t.client('Acme') })
const hook = (
  await t.call('POST', '/api/v1/webhooks', {
    key,
    body: { url: receiver.url, events: ['campaign.complete', 'email.opened'] },
  })
).body.data
const path = `/api/v1/webhooks/${hook.id}/test`

describe('test event: which one is sent', () => {
  const rows: { name: string; body?: unknown; type: string }[] = [
    { name: 'no body → the first subscribed event', type: 'campaign.complete' },
    { name: '{} → the first subscribed event', body: {}, type: 'campaign.complete' },
    { name: 'event named → that one', body: { event: 'email.opened' }, type: 'email.opened' },
    {
      name: 'an event not subscribed → that one too',
      body: { event: 'reply.received' },
      type: 'reply.received',
    },
  ]
  for (const r of rows)
    test(r.name, async () => {
      const before = receiver.received.length
      const res = await t.call('POST', path, { key, body: r.body })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ delivered: true })
      const got = receiver.received.slice(before)
      expect(got).toHaveLength(1)
      // Signed as every delivery is: the standardwebhooks library verifies it.
      const envelope = new Webhook(hook.secret).verify(got[0]!.body, got[0]!.headers) as {
        id: string
        type: string
        data: { test: boolean }
      }
      expect(envelope.type).toBe(r.type)
      expect(envelope.id).toBe(res.body.data.event_id)
      expect(envelope.data.test).toBe(true)
    })
})

describe('test event: refusals', () => {
  scenarios(t, { method: 'POST', path, key: () => key }, [
    {
      name: 'unknown event',
      body: { event: 'email.sent' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'event',
    },
    { name: 'event null', body: { event: null }, status: 422, field: 'event' },
    { name: 'unknown member', body: { kind: 'x' }, status: 422, field: 'kind' },
    {
      name: 'unknown webhook',
      path: `/api/v1/webhooks/${Bun.randomUUIDv7()}/test`,
      status: 404,
      code: 'NOT_FOUND',
    },
    { name: 'no credential', key: () => null, status: 401, code: 'UNAUTHORIZED' },
  ])
})
