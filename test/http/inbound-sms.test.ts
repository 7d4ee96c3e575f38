import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { consents, contacts, replies } from '../../src/db/schema'
import { loggedPath } from '../../src/http/rest/logged-path'
import { mapInOrder } from '../../src/lib/in-order'
import { BASE, createTestApp } from '../helpers/app'
import { tenant } from '../helpers/campaign'
import { jsonOf, rowOf, rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'

// Texts to a client's Twilio number, POST /hooks/twilio/sms/{token}, signed as Twilio signs them
// (HMAC-SHA1 of the URL and the sorted form parameters with the auth token): STOP and START set
// the SMS opt-out of the number's contacts, HELP is answered as TwiML, anything else is a reply.
// An opted-out contact's texts are skipped with sms_opted_out, and START brings them back.

const INSTANCE_TOKEN = 'instance-twilio-token'
const t = await createTestApp({ env: { HERALD_TWILIO_AUTH_TOKEN: INSTANCE_TOKEN } })
const provider = recordingProvider()
startTestSender(t, provider)

const acme = await tenant(t, 'Acme')
const profile = await acme.call('PUT', `/api/v1/clients/${acme.clientId}/sending`, {})
const URL_ = profile.feedback.urls.twilio_sms as string
const list = await acme.call('POST', '/api/v1/lists', { name: 'Texts' })

let serial = 20
/** Contacts of Acme sharing one new number (carriers opt a number out, not a person). */
async function number(people = 1) {
  const phone = `+1415555${String(100 + serial++).padStart(4, '0')}`
  const ids: string[] = []
  for (let i = 0; i < people; i++)
    ids.push(
      (
        await acme.call('POST', '/api/v1/contacts', {
          email: `sms${serial}-${i}@example.com`,
          phone,
          list_ids: [list.id],
        })
      ).id,
    )
  return { phone, ids }
}

const signature = (url: string, params: Record<string, string>, token: string) =>
  createHmac('sha1', token)
    .update(
      url +
        Object.keys(params)
          .sort()
          .map((k) => k + params[k])
          .join(''),
    )
    .digest('base64')

/** A text as Twilio posts it: From, To, Body, MessageSid…, signed with `token` unless told otherwise. */
function text(
  from: string,
  body: string,
  o: { url?: string; token?: string; signature?: string | null; tamper?: boolean } = {},
) {
  const url = o.url ?? URL_
  const params = {
    MessageSid: `SM${crypto.randomUUID().replaceAll('-', '')}`,
    AccountSid: 'AC00000000000000000000000000000009',
    From: from,
    To: '+14155550100',
    Body: body,
    NumMedia: '0',
  }
  const sig = o.signature === undefined ? signature(url, params, o.token ?? INSTANCE_TOKEN) : o.signature
  return t.app.handle(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(sig === null ? {} : { 'x-twilio-signature': sig }),
      },
      body: new URLSearchParams(o.tamper ? { ...params, Body: `${body}!` } : params).toString(),
    }),
  )
}

const optedOut = async (id: string) =>
  (await t.ctx.db.select({ v: contacts.smsOptOut }).from(contacts).where(eq(contacts.id, id)).limit(1))[0]!.v
const consentsOf = async (id: string) =>
  await t.ctx.db.select().from(consents).where(eq(consents.contactId, id))
const repliesOf = async (id: string) => await t.ctx.db.select().from(replies).where(eq(replies.contactId, id))
const EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

/** An SMS campaign to the list; the statuses and skip reasons of its messages to `ids`. */
async function smsCampaign(ids: string[]) {
  const c = await acme.call('POST', '/api/v1/campaigns', {
    name: `SMS ${serial++}`,
    channel: 'sms',
    list_id: list.id,
    body_text: 'Sale today',
  })
  await acme.call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  await eventually(async () =>
    expect((await acme.call('GET', `/api/v1/campaigns/${c.id}`)).status).toBe('sent'),
  )
  return await mapInOrder(
    ids,
    async (id) =>
      (await rowOf<{ status: string; skip_reason: string | null }>(
        t,
        sql`SELECT status, skip_reason FROM messages WHERE campaign_id = ${c.id} AND contact_id = ${id}`,
      ))!,
  )
}

describe('who may post', () => {
  test('the sending profile shows the inbound SMS URL', () => {
    expect(URL_).toMatch(new RegExp(`^${BASE}/hooks/twilio/sms/\\w{20,}$`))
    expect(profile.sms.help_text).toBeNull()
    // The access log names the route, never the token.
    expect(loggedPath(new URL(URL_).pathname)).toBe('/hooks/twilio/sms/:token')
  })

  const rows: [string, Parameters<typeof text>[2], number][] = [
    ['an unknown token', { url: `${BASE}/hooks/twilio/sms/nope` }, 404],
    ['no signature', { signature: null }, 401],
    ['a signature with another token', { token: 'not-the-token' }, 401],
    ['a body changed after signing', { tamper: true }, 401],
    ['a signature over another URL', { signature: signature(`${URL_}x`, {}, INSTANCE_TOKEN) }, 401],
  ]
  for (const [name, o, status] of rows)
    test(`${name} → ${status}, nothing changes`, async () => {
      const n = await number()
      const r = await text(n.phone, 'STOP', o)
      expect(r.status).toBe(status)
      expect(await optedOut(n.ids[0]!)).toBe(false)
      expect((await consentsOf(n.ids[0]!)).filter((c) => c.source === 'sms')).toHaveLength(0)
    })

  test('a client with its own Twilio account for SMS: its token signs, the instance’s does not', async () => {
    const own = await tenant(t, 'Own')
    const p = await own.call('PUT', `/api/v1/clients/${own.clientId}/sending`, {
      sms: {
        provider: 'twilio',
        twilio_account_sid: 'AC00000000000000000000000000000007',
        twilio_auth_token: 'own-token',
        help_text: 'Own & Co: STOP to stop <3',
      },
    })
    const url = p.feedback.urls.twilio_sms
    expect((await text('+14155550199', 'HELP', { url })).status).toBe(401)
    const r = await text('+14155550199', 'help', { url, token: 'own-token' })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/xml; charset=utf-8')
    expect(await r.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Own &amp; Co: STOP to stop &lt;3</Message></Response>',
    )
  })
})

describe('keywords', () => {
  test('HELP and INFO, in any case, answer the default help text naming the client', async () => {
    for (const body of ['HELP', ' info ', 'Help']) {
      const r = await text('+14155550198', body)
      expect(r.status).toBe(200)
      expect(await r.text()).toBe(
        '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Acme: reply STOP to unsubscribe, START to resubscribe.</Message></Response>',
      )
    }
  })

  for (const word of ['STOP', 'stopall', ' Unsubscribe ', 'cancel', 'END', 'Quit'])
    test(`"${word}" opts out every contact with the number, once, with a consent row; START brings them back`, async () => {
      const n = await number(2)
      const r = await text(n.phone, word)
      expect(r.status).toBe(200)
      expect(await r.text()).toBe(EMPTY)
      await text(n.phone, word) // a repeat changes nothing
      for (const id of n.ids) {
        expect(await optedOut(id)).toBe(true)
        expect((await consentsOf(id)).filter((c) => c.source === 'sms')).toMatchObject([
          { action: 'unsubscribed', listId: null, clientId: acme.clientId },
        ])
        expect((await acme.call('GET', `/api/v1/contacts/${id}`)).sms_opt_out).toBe(true)
      }
      for (const back of ['START', 'unstop', 'Yes'])
        expect(await (await text(n.phone, back)).text()).toBe(EMPTY)
      for (const id of n.ids) {
        expect(await optedOut(id)).toBe(false)
        expect((await consentsOf(id)).map((c) => c.action)).toEqual([
          'subscribed',
          'unsubscribed',
          'subscribed',
        ])
      }
    })

  test('another client’s contact with the same number is not touched', async () => {
    const n = await number()
    const other = await tenant(t, 'Other')
    const theirs = await other.call('POST', '/api/v1/contacts', { email: 'same@example.com', phone: n.phone })
    await text(n.phone, 'STOP')
    expect(await optedOut(n.ids[0]!)).toBe(true)
    expect(await optedOut(theirs.id)).toBe(false)
  })

  test('an unknown number: 200, an empty answer, nothing stored', async () => {
    const before = (await t.ctx.db.select().from(consents)).length
    for (const body of ['STOP', 'hello?']) {
      const r = await text('+14155550197', body)
      expect(r.status).toBe(200)
      expect(await r.text()).toBe(EMPTY)
    }
    expect((await t.ctx.db.select().from(consents)).length).toBe(before)
    expect(await t.ctx.db.select().from(replies).where(eq(replies.fromAddress, '+14155550197'))).toHaveLength(
      0,
    )
  })
})

describe('the send path and replies', () => {
  test('an opted-out contact’s SMS is skipped with sms_opted_out; after START the next one is sent', async () => {
    const out = await number()
    const stays = await number()
    await text(out.phone, 'STOP')
    expect(await smsCampaign([out.ids[0]!, stays.ids[0]!])).toEqual([
      { status: 'skipped', skip_reason: 'sms_opted_out' },
      { status: 'delivered', skip_reason: null },
    ])
    await text(out.phone, 'START')
    expect((await smsCampaign([out.ids[0]!]))[0]).toEqual({ status: 'delivered', skip_reason: null })
  })

  test('any other text is a reply to the latest SMS the number was sent, with reply.received', async () => {
    const n = await number()
    expect(await text(n.phone, 'Do you ship to Canada?').then((r) => r.text())).toBe(EMPTY)
    expect(await repliesOf(n.ids[0]!)).toHaveLength(0) // nothing was sent to it yet: no message to answer
    await smsCampaign(n.ids)
    const latest = (await rowOf<{ id: string }>(
      t,
      sql`SELECT id FROM messages WHERE contact_id = ${n.ids[0]!} ORDER BY seq DESC LIMIT 1`,
    ))!.id
    expect((await text(n.phone, 'STOP please')).status).toBe(200) // not a keyword: the whole text counts
    expect(await optedOut(n.ids[0]!)).toBe(false)
    expect(await repliesOf(n.ids[0]!)).toMatchObject([
      {
        messageId: latest,
        fromAddress: n.phone,
        snippet: 'STOP please',
        bodyText: 'STOP please',
        subject: null,
      },
    ])
    const [event] = (
      await rowsOf<{ data: unknown }>(
        t,
        sql`SELECT data FROM events WHERE message_id = ${latest} AND type = 'reply.received'`,
      )
    ).map((e) => jsonOf(e.data))
    expect(event).toMatchObject({ from: n.phone, snippet: 'STOP please' })
    expect((await acme.call('GET', `/api/v1/messages/${latest}`)).replied_at).not.toBeNull()
  })
})

describe('sms_opt_out through the API', () => {
  test('PATCH sets and clears it, each change with a consent row of the caller', async () => {
    const n = await number()
    const id = n.ids[0]!
    expect((await acme.call('PATCH', `/api/v1/contacts/${id}`, { sms_opt_out: true })).sms_opt_out).toBe(true)
    await acme.call('PATCH', `/api/v1/contacts/${id}`, { sms_opt_out: true })
    expect((await acme.call('PATCH', `/api/v1/contacts/${id}`, { sms_opt_out: false })).sms_opt_out).toBe(
      false,
    )
    expect((await consentsOf(id)).filter((c) => c.listId === null).map((c) => [c.action, c.source])).toEqual([
      ['unsubscribed', 'api'],
      ['subscribed', 'api'],
    ])
  })
})
