import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { Webhook } from 'standardwebhooks'
import { EVENT_TYPES } from '../../src/services/events/record'
import { startWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { eventually, type Received, startReceiver } from '../helpers/receiver'
import { startTestSender } from '../helpers/sender'

// The spec's Events part in /openapi.json (top-level `webhooks`, OpenAPI 3.1): one entry per event
// type with its envelope, data and signature headers, checked against what Herald really POSTs —
// the seven test events and the real ones a campaign and an unsubscribe produce — with ajv, and
// each delivery verified with the standardwebhooks library. The acceptance review found the
// document without any description of the events.

// biome-ignore lint/suspicious/noExplicitAny: the document and bodies are walked freely
type Json = Record<string, any>

const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
const receiver = startReceiver()
startTestSender(t)
const worker = startWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 1000, pollMs: 10 })
afterAll(async () => {
  worker.stop()
  await receiver.close()
})
const acme = await campaignTenant(t, ['ann@acme.io'])
const hook = await acme.call('POST', '/api/v1/webhooks', { url: receiver.url, events: [...EVENT_TYPES] })

const doc: Json = (await t.call('GET', '/openapi.json', { key: null })).body
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
ajv.addSchema({ $id: 'herald:openapi', components: doc.components })
const validate = (type: string) => {
  const schema = doc.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.schema
  expect(schema).toBeDefined()
  return ajv.compile(
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"herald:openapi#/components/')),
  )
}

/** Checks one delivery against the document's entry for its type; returns the envelope. */
function check(got: Received): Json {
  const body = new Webhook(hook.secret).verify(got.body, got.headers) as Json
  const type = body.type as string
  const v = validate(type)
  if (!v(body)) throw new Error(`${type}: ${ajv.errorsText(v.errors)}\n${got.body}`)
  for (const p of doc.webhooks[type].post.parameters.filter((x: Json) => x.in === 'header'))
    expect(got.headers[p.name]).toBeDefined()
  return body
}

describe('every event type is in the document', () => {
  test('webhooks lists exactly the seven, each with a signed POST', () => {
    expect(Object.keys(doc.webhooks).toSorted()).toEqual([...EVENT_TYPES].toSorted())
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post
      expect(post.parameters.map((p: Json) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ])
      expect(post.responses['200']).toBeDefined()
    }
  })
})

describe('test events match their entry', () => {
  for (const type of EVENT_TYPES)
    test(type, async () => {
      const before = receiver.received.length
      const res = await t.call('POST', `/api/v1/webhooks/${hook.id}/test`, {
        key: acme.key,
        body: { event: type },
      })
      expect(res.status).toBe(200)
      const body = check(receiver.received[before]!)
      expect(body.type).toBe(type)
    })
})

describe('real events match their entry', () => {
  let real: Json[] = []
  beforeAll(async () => {
    const before = receiver.received.length
    await acme.launchAndWait()
    await acme.call('PATCH', `/api/v1/contacts/${acme.contacts['ann@acme.io']}`, { status: 'unsubscribed' })
    await eventually(async () => {
      const types = receiver.received.slice(before).map((r) => JSON.parse(r.body).type)
      expect(types).toEqual(
        expect.arrayContaining(['email.delivered', 'campaign.complete', 'contact.unsubscribed']),
      )
    })
    real = receiver.received.slice(before).map(check)
  })
  for (const type of ['email.delivered', 'campaign.complete', 'contact.unsubscribed'])
    test(type, () => {
      expect(real.some((e) => e.type === type && e.data.test === undefined)).toBe(true)
    })
  test('a document entry refuses what it should (the check can fail)', () => {
    const v = validate('email.delivered')
    expect(v({ id: 'evt_x', type: 'email.delivered', created_at: 'now', data: {} })).toBe(false)
  })
})
