// Consent records through every door that subscribes or unsubscribes someone (API, portal,
// import, PATCH, unsubscribe link), GET /contacts/{id}/consents and the access export, and
// confirmed-only audiences: an unconfirmed member or one who left the list is not sent to.

import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { encodeLinkToken, trackingKey } from '../../src/lib/tracking-token'
import { createImportWorker } from '../../src/services/imports/runner'
import { addMembers, unsubscribeMembers } from '../../src/services/lists/membership'
import { createTestApp } from '../helpers/app'
import { tenant } from '../helpers/campaign'
import { rowOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { lazyOwner, PORTAL_ENV } from './admin/portal-helpers'

setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const imports = createImportWorker(t.ctx)
const owner = lazyOwner(t)
const provider = recordingProvider()
startTestSender(t, provider)

async function consentsOf(key: string, contactId: string) {
  const r = await t.call('GET', `/api/v1/contacts/${contactId}/consents`, { key })
  expect(r.status).toBe(200)
  return (r.body.data as { action: string; source: string; list_id: string | null }[])
    .map((c) => [c.action, c.source, c.list_id])
    .reverse()
}

describe('consent records', () => {
  const cases: {
    name: string
    act: (x: Awaited<ReturnType<typeof setup>>) => Promise<void>
    expected: (x: Awaited<ReturnType<typeof setup>>) => (string | null)[][]
  }[] = [
    {
      name: 'API: add to a list, again (no change), remove',
      act: async ({ call, list, contact }) => {
        await call('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [contact] })
        await call('POST', `/api/v1/lists/${list.id}/contacts`, { contact_ids: [contact] })
        await call('POST', `/api/v1/lists/${list.id}/contacts/remove`, { contact_ids: [contact] })
      },
      expected: ({ list }) => [
        ['subscribed', 'api', list.id],
        ['unsubscribed', 'api', list.id],
      ],
    },
    {
      name: 'API: PATCH status unsubscribed',
      act: async ({ call, contact }) => {
        await call('PATCH', `/api/v1/contacts/${contact}`, { status: 'unsubscribed' })
      },
      expected: () => [['unsubscribed', 'api', null]],
    },
    {
      name: 'API: a contact created on a list',
      act: async (x) => {
        x.contact = (
          await x.call('POST', '/api/v1/contacts', { email: 'new@acme.io', list_ids: [x.list.id] })
        ).id
      },
      expected: ({ list }) => [['subscribed', 'api', list.id]],
    },
    {
      name: 'import into a list, twice (the second changes nothing)',
      act: async ({ call, list }) => {
        for (let i = 0; i < 2; i++) {
          const job = await call('POST', `/api/v1/contacts/imports?list_id=${list.id}`, undefined, {
            raw: 'email\nann@acme.io\n',
            headers: { 'content-type': 'text/csv' },
          })
          await imports.drain()
          await eventually(async () =>
            expect((await call('GET', `/api/v1/contacts/imports/${job.id}`)).status).toBe('completed'),
          )
        }
      },
      expected: ({ list }) => [['subscribed', 'import', list.id]],
    },
    {
      name: 'the unsubscribe link of a message',
      act: async ({ call, clientId, contact }) => {
        const m = await call('POST', '/api/v1/messages', {
          contact_id: contact,
          subject: 'Hi',
          body_text: 'Hello',
        })
        const token = encodeLinkToken(trackingKey(t.ctx.secretKey), clientId, 'unsubscribe', m.id)
        const r = await t.app.handle(new Request(`http://localhost:8080/u/${token}`, { method: 'POST' }))
        expect(r.status).toBe(200)
      },
      expected: () => [['unsubscribed', 'unsubscribe_link', null]],
    },
    {
      name: 'the portal: a contact added to a list by a person',
      act: async (x) => {
        const b = await owner()
        await b.post('/admin/workspace', { workspace: x.clientId, next: '/admin/contacts' })
        const created = await b.post('/admin/contacts', {
          email: 'portal@acme.io',
          list_ids: [x.list.id],
        })
        expect(created.status).toBe(303)
        x.contact = created.location!.split('/').pop()!
      },
      expected: ({ list }) => [['subscribed', 'admin', list.id]],
    },
  ]

  async function setup() {
    const tn = await tenant(t)
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      raw?: { raw: string; headers: Record<string, string> },
    ) => {
      const r = await t.call(method, path, { key: tn.key, body, ...raw })
      if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
      return r.body.data
    }
    const list = await call('POST', '/api/v1/lists', { name: 'News' })
    const contact = (await call('POST', '/api/v1/contacts', { email: 'ann@acme.io' })).id as string
    return { ...tn, call, list, contact }
  }

  for (const c of cases)
    test(c.name, async () => {
      const x = await setup()
      await c.act(x)
      expect(await consentsOf(x.key, x.contact)).toEqual(c.expected(x))
    })

  test('erasing the contact removes its consent records', async () => {
    const x = await setup()
    await x.call('POST', `/api/v1/lists/${x.list.id}/contacts`, { contact_ids: [x.contact] })
    const count = async () =>
      (await rowOf<{ n: number }>(
        t,
        sql`SELECT CAST(count(*) AS INTEGER) AS n FROM consents WHERE contact_id = ${x.contact}`,
      ))!
    expect((await count()).n).toBe(1)
    await x.call('DELETE', `/api/v1/contacts/${x.contact}`)
    expect((await count()).n).toBe(0)
  })

  test('another client’s contact’s consents and export are 404', async () => {
    const a = await setup()
    const b = await setup()
    for (const path of ['consents', 'export'])
      expect((await t.call('GET', `/api/v1/contacts/${a.contact}/${path}`, { key: b.key })).status).toBe(404)
  })
})

describe('access export', () => {
  test('one document: fields, memberships, consents, messages without bodies, events, suppressions', async () => {
    const { call, key, list, contact } = await (async () => {
      const tn = await tenant(t)
      const list = await tn.call('POST', '/api/v1/lists', { name: 'News' })
      const contact = (
        await tn.call('POST', '/api/v1/contacts', { email: 'eve@acme.io', list_ids: [list.id] })
      ).id
      return { ...tn, list, contact }
    })()
    await call('POST', '/api/v1/messages', {
      contact_id: contact,
      subject: 'Secret plan',
      body_text: 'The body',
    })
    await call('PATCH', `/api/v1/contacts/${contact}`, { status: 'unsubscribed' })
    await call('POST', '/api/v1/suppressions', { email: 'eve@acme.io', reason: 'asked' }).catch(() => null)
    const r = await t.call('GET', `/api/v1/contacts/${contact}/export`, { key })
    expect(r.status).toBe(200)
    const doc = r.body.data
    expect(doc.contact).toMatchObject({ id: contact, email: 'eve@acme.io', status: 'unsubscribed' })
    expect(doc.memberships.items).toEqual([
      expect.objectContaining({ list_id: list.id, list_name: 'News', status: 'confirmed' }),
    ])
    expect(doc.consents.items.map((c: { action: string }) => c.action)).toEqual([
      'subscribed',
      'unsubscribed',
    ])
    expect(doc.messages.items).toHaveLength(1)
    expect(doc.messages.items[0].contact_id).toBe(contact)
    expect(r.text).not.toContain('The body')
    expect(doc.events.items.map((e: { type: string }) => e.type)).toContain('contact.unsubscribed')
    expect(doc.suppressions.items.length).toBeGreaterThanOrEqual(0)
    for (const section of ['memberships', 'consents', 'messages', 'events', 'replies', 'suppressions'])
      expect(doc[section].truncated).toBe(false)
  })
})

describe('only confirmed members are an audience', () => {
  test('a campaign to a list skips the unconfirmed and those who left; counts say so', async () => {
    const { call, clientId } = await tenant(t)
    const list = await call('POST', '/api/v1/lists', { name: 'Mixed', opt_in: 'double', public: true })
    expect(list).toMatchObject({ opt_in: 'double', public: true, public_name: null, unconfirmed_count: 0 })
    const ids: string[] = []
    for (const email of ['in@acme.io', 'pending@acme.io', 'gone@acme.io'])
      ids.push((await call('POST', '/api/v1/contacts', { email })).id)
    const now = t.ctx.clock.now()
    await addMembers(t.ctx, list.id, [ids[0]!, ids[2]!], now)
    await addMembers(t.ctx, list.id, [ids[1]!], now, { status: 'unconfirmed' })
    await unsubscribeMembers(t.ctx.db, list.id, [ids[2]!], now)
    expect(await call('GET', `/api/v1/lists/${list.id}`)).toMatchObject({
      member_count: 1,
      unconfirmed_count: 1,
    })
    const members = await t.call('GET', `/api/v1/lists/${list.id}/contacts`, {
      key: await t.key({ scopes: ['admin:*'], clientId }),
    })
    expect(
      members.body.data.map((m: { email: string; membership_status: string }) => [
        m.email,
        m.membership_status,
      ]),
    ).toEqual([
      ['pending@acme.io', 'unconfirmed'],
      ['in@acme.io', 'confirmed'],
    ])
    expect(members.body.pagination.total).toBe(2)

    const segment = await call('POST', '/api/v1/segments', {
      name: 'On the list',
      rule_groups: [{ match: 'all', rules: [{ field: 'list', operator: 'in', value: [list.id] }] }],
    })
    expect(segment.estimated_size).toBe(1)

    const c = await call('POST', '/api/v1/campaigns', {
      name: 'News',
      list_id: list.id,
      subject: 'Hi',
      body_html: '<p>Hi <a href="{{ unsubscribe_url }}">unsubscribe</a></p>',
    })
    const launched = await call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    expect(
      launched.total_recipients ?? (await call('GET', `/api/v1/campaigns/${c.id}`)).total_recipients,
    ).toBe(1)
    await eventually(async () => expect((await call('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'))
    const sent = await call('GET', `/api/v1/messages?campaign_id=${c.id}`)
    expect(sent.map((m: { to: string }) => m.to)).toEqual(['in@acme.io'])
  })

  test('PATCH /lists/{id} changes opt-in and visibility; bad values are 422', async () => {
    const { call, key } = await tenant(t)
    const list = await call('POST', '/api/v1/lists', { name: 'L' })
    expect(list).toMatchObject({ opt_in: 'single', public: false })
    expect(
      await call('PATCH', `/api/v1/lists/${list.id}`, { public: true, public_name: 'Weekly news' }),
    ).toMatchObject({
      name: 'L',
      public: true,
      public_name: 'Weekly news',
    })
    for (const body of [{ opt_in: 'triple' }, { public: 'yes' }, { name: '' }, { member_count: 3 }]) {
      const r = await t.call('PATCH', `/api/v1/lists/${list.id}`, { key, body })
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_FAILED')
    }
  })
})
