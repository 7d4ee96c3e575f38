import { describe, expect, test } from 'bun:test'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { scenarios } from '../helpers/scenarios'
import { allChannels, recordingProvider } from '../helpers/sender'

// POST /api/v1/messages: one message outside any campaign through the same verb and outbox.
// The send worker is driven pass by pass, so "nothing was sent" is checked without waiting.

const t = await createTestApp()
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const writer = await t.key({ scopes: ['campaigns:write'], clientId: acme })
const setup = await t.key({ scopes: ['admin:*'], clientId: acme })
const reader = await t.key({ scopes: ['campaigns:read', 'contacts:read'], clientId: acme })
const globexKey = await t.key({ scopes: ['admin:*'], clientId: globex })

const provider = recordingProvider()
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })

const data = async (method: string, path: string, body: unknown, key = writer) =>
  (await t.call(method, path, { key, body })).body.data
const ann = await data('POST', '/api/v1/contacts', { email: 'ann@example.com', first_name: 'Ann' }, setup)
const theirs = await data('POST', '/api/v1/contacts', { email: 'bob@example.com' }, globexKey)
const template = await data(
  'POST',
  '/api/v1/templates',
  {
    name: 'Receipt',
    subject: 'Order {{ order }}',
    body_html: '<p>Thanks {{ contact.first_name }} for order {{ order }}</p>',
  },
  setup,
)

describe('POST /api/v1/messages', () => {
  scenarios(t, { method: 'POST', path: '/api/v1/messages', key: () => writer }, [
    {
      name: 'a key without campaigns:write is refused',
      key: () => reader,
      body: { contact_id: ann.id, template_id: template.id },
      status: 403,
      code: 'FORBIDDEN',
    },
    // DESIGN §6: a body reference the caller cannot see is 422 naming the member, not 404.
    {
      name: 'a contact of another client is 422 naming contact_id',
      body: { contact_id: theirs.id, template_id: template.id },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'contact_id',
      message: 'no such contact in this client',
    },
    {
      name: 'an unknown contact is 422 naming contact_id',
      body: { contact_id: '01a20c27-37b2-7276-a460-000000000000', subject: 'Hi', body_text: 'Hello' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'contact_id',
    },
    {
      name: 'every failing member is listed',
      body: { channel: 'pigeon', colour: 'red' },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'contact_id',
    },
    {
      name: 'an email without content says what is missing',
      body: { contact_id: ann.id },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'subject',
    },
    {
      name: 'a platform-wide key must name the client',
      key: () => t.adminKey,
      body: { contact_id: ann.id, template_id: template.id },
      status: 422,
      code: 'VALIDATION_FAILED',
      field: 'client_id',
    },
  ])

  test('refused requests queued nothing', async () => {
    expect((await worker.runOnce()).worked).toBe(false)
    expect(provider.sent).toHaveLength(0)
  })

  test('a template to a contact is queued, sent by the outbox, and readable like any message', async () => {
    const r = await t.call('POST', '/api/v1/messages', {
      key: writer,
      body: { contact_id: ann.id, template_id: template.id, variables: { order: 'A-17' } },
    })
    expect(r.status, r.text).toBe(200)
    expect(r.body.data).toMatchObject({
      status: 'queued',
      campaign_id: null,
      contact_id: ann.id,
      to: ann.email,
    })
    await worker.drain()
    const read = await data('GET', `/api/v1/messages/${r.body.data.id}`, undefined, reader)
    expect(read).toMatchObject({ status: 'delivered', campaign_id: null, subject: 'Order A-17' })
    expect(read.body_html).toContain('Thanks Ann for order A-17')
    expect(provider.sent.map((m) => m.to)).toEqual(['ann@example.com'])
  })
})
