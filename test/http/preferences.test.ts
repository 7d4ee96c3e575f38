import { describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { consents, contacts, listMembers, lists, suppressions } from '../../src/db/schema'
import { loggedPath } from '../../src/http/rest/logged-path'
import {
  encodeLinkToken,
  encodePreviewToken,
  preferencesPath,
  trackingKey,
} from '../../src/lib/tracking-token'
import { addMembers } from '../../src/services/lists/membership'
import { issueNonce } from '../../src/services/preferences/nonce'
import { BASE, createTestApp } from '../helpers/app'
import { tenant } from '../helpers/campaign'
import { jsonOf, rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'

// The preference centre, GET/POST /p/{token}: bad links, the nonce a POST must carry, ticking and
// unticking public lists (membership, counts, consent rows, who the next campaign reaches), a
// name change and "unsubscribe from everything"; `preferences_url` in a sent message and in a
// template preview, and the unsubscribe page's link to it.

const t = await createTestApp()
const provider = recordingProvider()
startTestSender(t, provider)
const key = trackingKey(t.ctx.secretKey)
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0'

const { clientId, call } = await tenant(t)
const other = await tenant(t, 'Other')
const news = await call('POST', '/api/v1/lists', { name: 'news-internal' })
const deals = await call('POST', '/api/v1/lists', { name: 'Deals' })
const hidden = await call('POST', '/api/v1/lists', { name: 'Hidden' })
await t.ctx.db.update(lists).set({ public: true, publicName: 'Weekly news' }).where(eq(lists.id, news.id))
await t.ctx.db.update(lists).set({ public: true }).where(eq(lists.id, deals.id))

let serial = 0
/** A contact of the tenant on `listIds`, and its preference centre's path. */
async function person(
  listIds: string[] = [news.id, deals.id, hidden.id],
  extra: Record<string, unknown> = {},
) {
  const c = await call('POST', '/api/v1/contacts', {
    email: `p${serial++}@example.com`,
    first_name: 'Ann',
    last_name: 'Lee',
    list_ids: listIds,
    ...extra,
  })
  return { id: c.id as string, email: c.email as string, path: preferencesPath(key, clientId, c.id) }
}

const hit = (method: 'GET' | 'POST', path: string, form?: Record<string, string | string[]>) => {
  const body = new URLSearchParams()
  for (const [k, v] of Object.entries(form ?? {})) for (const one of [v].flat()) body.append(k, one)
  return t.app.handle(
    new Request(BASE + path, {
      method,
      headers: {
        'user-agent': UA,
        'x-forwarded-for': '203.0.113.9',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? body.toString() : undefined,
    }),
  )
}
const nonceOf = async (path: string) =>
  /name="nonce" value="([^"]+)"/.exec(await (await hit('GET', path)).text())![1]!

/** What a POST may change: memberships, consent rows, the contact's name and status, suppressions. */
async function state(contactId: string) {
  const c = (await t.ctx.db.select().from(contacts).where(eq(contacts.id, contactId)).limit(1))[0]!
  return {
    memberships: Object.fromEntries(
      (await t.ctx.db.select().from(listMembers).where(eq(listMembers.contactId, contactId))).map((m) => [
        m.listId,
        m.status,
      ]),
    ),
    consents: (await t.ctx.db.select().from(consents).where(eq(consents.contactId, contactId))).length,
    name: [c.firstName, c.lastName],
    status: c.status,
    suppressed: (await t.ctx.db.select().from(suppressions).where(eq(suppressions.email, c.email))).length,
  }
}
const consentsOf = async (contactId: string) =>
  await t.ctx.db.select().from(consents).where(eq(consents.contactId, contactId))
const memberCount = async (listId: string) => (await call('GET', `/api/v1/lists/${listId}`)).member_count

describe('links that are not a preference centre', () => {
  const rows: [string, (p: { id: string }) => string][] = [
    ['garbage', () => '/p/not-a-token'],
    ['signed for another client', (p) => preferencesPath(key, other.clientId, p.id)],
    ['signed with another instance key', (p) => preferencesPath(Buffer.alloc(32, 7), clientId, p.id)],
    [
      'an unsubscribe token of the contact id',
      (p) => `/p/${encodeLinkToken(key, clientId, 'unsubscribe', p.id)}`,
    ],
    ['a contact that does not exist', () => preferencesPath(key, clientId, randomUUID())],
  ]
  for (const [name, pathOf] of rows)
    test(`${name} → 404 page, GET and POST, nothing changed`, async () => {
      const p = await person()
      const before = await state(p.id)
      const path = pathOf(p)
      const got = await hit('GET', path)
      expect(got.status).toBe(404)
      expect(got.headers.get('content-type')).toContain('text/html')
      expect(await got.text()).toContain('This link is not valid')
      const posted = await hit('POST', path, {
        nonce: issueNonce(key, p.id, Date.now()),
        unsubscribe_all: '1',
      })
      expect(posted.status).toBe(404)
      expect(await state(p.id)).toEqual(before)
    })
})

describe('the page', () => {
  test('public lists by their public name, ticked for memberships; the name; a nonce; no script', async () => {
    const p = await person([news.id, hidden.id])
    const r = await hit('GET', p.path)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(r.headers.get('cache-control')).toContain('no-store')
    const html = await r.text()
    expect(html).toContain('Acme') // the client's name heads the page
    expect(html).toContain(p.email)
    expect(html).toMatch(new RegExp(`value="${news.id}" checked> Weekly news`))
    expect(html).toMatch(new RegExp(`value="${deals.id}"> Deals`))
    expect(html).not.toContain('Hidden')
    expect(html).not.toContain('news-internal')
    expect(html).toContain('name="first_name" maxlength="200" autocomplete="given-name" value="Ann"')
    expect(html).toContain('name="unsubscribe_all"')
    expect(html).toMatch(/name="nonce" value="[0-9a-z]+\.[\w-]{22}"/)
    expect(html).not.toContain('<script')
    expect(loggedPath(p.path)).toBe('/p/:token') // the access log never writes the token
  })
})

describe('a POST without a fresh nonce of this contact is refused and changes nothing', () => {
  const now = Date.now()
  const rows: [string, (id: string) => string | null][] = [
    ['no nonce', () => null],
    ['a forged nonce', (id) => issueNonce(key, id, now).replace(/.{4}$/, 'AAAA')],
    ['another contact’s nonce', () => issueNonce(key, randomUUID(), now)],
    ['a nonce made five hours ago', (id) => issueNonce(key, id, now - 5 * 60 * 60_000)],
    ['a nonce from the future', (id) => issueNonce(key, id, now + 10 * 60_000)],
    ['another instance’s nonce', (id) => issueNonce(Buffer.alloc(32, 1), id, now)],
  ]
  for (const [name, nonceFor] of rows)
    test(`${name} → 403`, async () => {
      const p = await person()
      const before = await state(p.id)
      const nonce = nonceFor(p.id)
      const r = await hit('POST', p.path, {
        ...(nonce === null ? {} : { nonce }),
        first_name: 'Mallory',
        list: [],
        unsubscribe_all: '1',
      })
      expect(r.status).toBe(403)
      expect(await r.text()).toContain('Nothing was changed')
      expect(await state(p.id)).toEqual(before)
    })
})

describe('saving', () => {
  test('unticking a list leaves it (counts, consent row); ticking it again joins it', async () => {
    const p = await person()
    const dealsBefore = await memberCount(deals.id)
    const r = await hit('POST', p.path, {
      nonce: await nonceOf(p.path),
      first_name: 'Ann',
      last_name: 'Lee',
      list: [news.id],
    })
    expect(r.status).toBe(200)
    expect(await r.text()).toContain('Your preferences are saved')
    const after = await state(p.id)
    expect(after.memberships).toEqual({
      [news.id]: 'confirmed',
      [deals.id]: 'unsubscribed',
      [hidden.id]: 'confirmed',
    })
    expect(after.status).toBe('subscribed')
    expect(await memberCount(deals.id)).toBe(dealsBefore - 1)
    const left = (await consentsOf(p.id)).filter((c) => c.source === 'preferences')
    expect(left).toHaveLength(1)
    expect(left[0]).toMatchObject({
      listId: deals.id,
      action: 'unsubscribed',
      ip: '203.0.113.9',
      userAgent: UA,
      clientId,
    })

    // The page shows it unticked now; ticking it again rejoins as a confirmed member.
    expect(await (await hit('GET', p.path)).text()).toMatch(new RegExp(`value="${deals.id}"> Deals`))
    await hit('POST', p.path, { nonce: await nonceOf(p.path), list: [news.id, deals.id] })
    expect((await state(p.id)).memberships[deals.id]).toBe('confirmed')
    expect(await memberCount(deals.id)).toBe(dealsBefore)
    expect((await consentsOf(p.id)).filter((c) => c.source === 'preferences').map((c) => c.action)).toEqual([
      'unsubscribed',
      'subscribed',
    ])
  })

  test('a list left in the preference centre: its next campaign skips the contact, the other list’s reaches them', async () => {
    const p = await person([news.id, deals.id])
    await hit('POST', p.path, { nonce: await nonceOf(p.path), list: [news.id] })
    /** The statuses of the messages a campaign to `listId` made for this contact. */
    const reached = async (listId: string) => {
      const c = await call('POST', '/api/v1/campaigns', {
        name: `To ${listId}`,
        list_id: listId,
        subject: 'Hi',
        body_html: '<p>Hi</p>',
      })
      await call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
      await eventually(async () =>
        expect((await call('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'),
      )
      return (
        await rowsOf<{ status: string }>(
          t,
          sql`SELECT status FROM messages WHERE campaign_id = ${c.id} AND contact_id = ${p.id}`,
        )
      )
        .map((m) => m.status)
        .filter((s) => s !== 'skipped')
    }
    expect(await reached(news.id)).toEqual(['delivered'])
    expect(await reached(deals.id)).toEqual([])
  })

  test('a double opt-in list waiting for confirmation shows ticked; saving it ticked confirms it', async () => {
    const p = await person([news.id])
    await t.ctx.db.update(lists).set({ optIn: 'double' }).where(eq(lists.id, deals.id))
    try {
      await addMembers(t.ctx, deals.id, [p.id], Date.now(), { status: 'unconfirmed' })
      const html = await (await hit('GET', p.path)).text()
      expect(html).toMatch(
        new RegExp(`value="${deals.id}" checked> Deals <small>\\(waiting for your confirmation`),
      )
      await hit('POST', p.path, { nonce: await nonceOf(p.path), list: [news.id, deals.id] })
      expect((await state(p.id)).memberships[deals.id]).toBe('confirmed')
      expect((await consentsOf(p.id)).at(-1)).toMatchObject({
        listId: deals.id,
        action: 'confirmed',
        source: 'preferences',
      })
    } finally {
      await t.ctx.db.update(lists).set({ optIn: 'single' }).where(eq(lists.id, deals.id))
    }
  })

  test('the name: trimmed, an empty field clears it, and lists not offered are never touched', async () => {
    const p = await person()
    await hit('POST', p.path, {
      nonce: await nonceOf(p.path),
      first_name: '  Annie ',
      last_name: '',
      list: [news.id, deals.id, hidden.id, other.clientId],
    })
    const after = await state(p.id)
    expect(after.name).toEqual(['Annie', null])
    expect(after.memberships).toEqual({
      [news.id]: 'confirmed',
      [deals.id]: 'confirmed',
      [hidden.id]: 'confirmed',
    })
    expect((await consentsOf(p.id)).filter((c) => c.source === 'preferences')).toHaveLength(0)
    expect((await call('GET', `/api/v1/contacts/${p.id}`)).first_name).toBe('Annie')
  })

  test('a crafted name with control characters (U+0000, a line break): they are dropped, the rest is saved', async () => {
    const p = await person()
    const r = await hit('POST', p.path, {
      nonce: await nonceOf(p.path),
      first_name: 'An\u0000nie\r\nBcc: x@y.io',
      last_name: '\u0000',
      list: [news.id],
    })
    expect(r.status).toBe(200)
    const after = await state(p.id)
    expect(after.name).toEqual(['AnnieBcc: x@y.io', null])
    expect(after.memberships[deals.id]).toBe('unsubscribed')
  })

  test('unsubscribe from everything: unsubscribed, suppressed, contact.unsubscribed and a consent row, once', async () => {
    const p = await person()
    const r = await hit('POST', p.path, {
      nonce: await nonceOf(p.path),
      list: [news.id],
      unsubscribe_all: '1',
    })
    expect(r.status).toBe(200)
    expect(await r.text()).toContain('You are unsubscribed')
    const after = await state(p.id)
    expect(after.status).toBe('unsubscribed')
    expect(after.suppressed).toBe(1)
    // Lists are left as they were: the contact receives nothing anyway.
    expect(after.memberships[deals.id]).toBe('confirmed')
    expect((await consentsOf(p.id)).filter((c) => c.source === 'preferences')).toMatchObject([
      { listId: null, action: 'unsubscribed' },
    ])
    const events = async () =>
      (
        await rowsOf<{ data: unknown }>(
          t,
          sql`SELECT data FROM events WHERE contact_id = ${p.id} AND type = 'contact.unsubscribed'`,
        )
      ).map((e) => jsonOf(e.data))
    expect(await events()).toMatchObject([{ source: 'preferences', email: p.email, message_id: null }])
    // The page now says so; a second "everything" changes nothing more.
    expect(await (await hit('GET', p.path)).text()).toContain('You receive no messages')
    await hit('POST', p.path, { nonce: await nonceOf(p.path), unsubscribe_all: '1' })
    expect(await events()).toHaveLength(1)
    expect((await consentsOf(p.id)).filter((c) => c.source === 'preferences')).toHaveLength(1)
  })
})

describe('preferences_url', () => {
  test('every sent message has the recipient’s; the unsubscribe page links to it', async () => {
    const p = await person([news.id])
    const c = await call('POST', '/api/v1/campaigns', {
      name: 'With preferences',
      list_id: news.id,
      subject: 'Hi',
      body_html:
        '<p><a href="{{ preferences_url }}">Preferences</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
    })
    await call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    await eventually(async () => expect((await call('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'))
    const sent = provider.sent.findLast((m) => m.to === p.email)!
    const html = sent.channel === 'email' ? sent.html! : ''
    expect(html).toContain(`href="${BASE}${p.path}"`)
    expect((await hit('GET', p.path)).status).toBe(200)
    const unsubscribe = new URL(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]!).pathname
    const page = await (await hit('GET', unsubscribe)).text()
    expect(page).toContain(`<a href="${BASE}${p.path}">Manage your preferences instead</a>`)
  })

  test('a template preview links to a preview page that shows no one and changes nothing', async () => {
    const tpl = await call('POST', '/api/v1/templates', {
      name: 'Prefs',
      subject: 'S',
      body_html: '<a href="{{ preferences_url }}">p</a>',
    })
    const preview = await call('POST', `/api/v1/templates/${tpl.id}/preview`, {})
    const path = new URL(/href="([^"]+)"/.exec(preview.body_html)![1]!).pathname
    expect(path).toBe(`/p/${encodePreviewToken(key, tpl.id, 'preview_preferences')}`)
    for (const method of ['GET', 'POST'] as const) {
      const r = await hit(method, path, method === 'POST' ? { unsubscribe_all: '1' } : undefined)
      expect(r.status).toBe(200)
      expect(await r.text()).toContain('This is a template preview')
    }
    // A preview token of the unsubscribe kind is not a preference-centre preview.
    expect((await hit('GET', `/p/${encodePreviewToken(key, tpl.id)}`)).status).toBe(404)
  })
})
