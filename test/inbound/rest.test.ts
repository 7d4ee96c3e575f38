import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import MailComposer from 'nodemailer/lib/mail-composer'
import { createTestApp } from '../helpers/app'
import { jsonOf, rowOf, rowsOf } from '../helpers/raw-sql'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { arf, dsn, type EmailOut, forge, INBOUND_ENV, mailtoOf, QUOTED_REPLY, sendCampaign } from './fixtures'

// POST /api/v1/inbound/email: the same routing as the SMTP listener, for a gateway that hands
// Herald the raw message (and, in `to`, the envelope recipient when it knows it).

const t = await createTestApp({ env: { ...INBOUND_ENV, HERALD_INBOUND_SMTP_PORT: '' } })
const provider = recordingProvider()
startTestSender(t, provider)

const EMAILS = [
  'ann@example.com',
  'bob@example.com',
  'cy@example.com',
  'dee@example.com',
  'eve@example.com',
  'fay@example.com',
]
const s = await sendCampaign(t, provider, EMAILS)
const m = (email: string) => s.out[email] as EmailOut

const post = (raw: string | Uint8Array, o: { to?: string; key?: string; type?: string } = {}) =>
  t.call('POST', `/api/v1/inbound/email${o.to ? `?to=${encodeURIComponent(o.to)}` : ''}`, {
    key: o.key,
    raw,
    headers: { 'content-type': o.type ?? 'message/rfc822' },
  })
const compose = async (mail: ConstructorParameters<typeof MailComposer>[0]) =>
  (await new MailComposer(mail).compile().build()).toString()
const contactStatus = async (email: string) =>
  (await s.call('GET', `/api/v1/contacts/${s.contacts[email]}`)).status as string
const countEvents = async () =>
  (await rowOf<{ n: number }>(t, sql`SELECT CAST(count(*) AS INTEGER) AS n FROM events`))!.n

describe('POST /api/v1/inbound/email', () => {
  test('a hard DSN with the envelope recipient in `to` → bounce', async () => {
    const ann = m('ann@example.com')
    const r = await post(
      dsn(ann, { action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 unknown user' }),
      {
        to: ann.envelopeFrom,
      },
    )
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ kind: 'bounce', message_id: ann.id, bounce_type: 'hard' })
    expect(await contactStatus('ann@example.com')).toBe('bounced')
    // The MTA retries its report: the first bounce stands, nothing is counted twice.
    const again = await post(dsn(ann, { action: 'failed', status: '5.1.1', diagnostic: 'x' }), {
      to: ann.envelopeFrom,
    })
    expect(again.body.data.reason).toContain('already bounced')
    expect((await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).bounced).toBe(1)
  })

  test('a soft bounce, then a hard one for the same message: the hard one suppresses; counted once', async () => {
    const fay = m('fay@example.com')
    const soft = await post(
      dsn(fay, { action: 'delayed', status: '4.2.2', diagnostic: '452 mailbox full' }),
      {
        to: fay.envelopeFrom,
      },
    )
    expect(soft.body.data).toEqual({ kind: 'bounce', message_id: fay.id, bounce_type: 'soft' })
    expect(await contactStatus('fay@example.com')).toBe('subscribed')
    const hard = await post(
      dsn(fay, { action: 'failed', status: '5.2.2', diagnostic: '552 over quota for days' }),
      {
        to: fay.envelopeFrom,
      },
    )
    expect(hard.body.data).toEqual({ kind: 'bounce', message_id: fay.id, bounce_type: 'hard' })
    expect(await contactStatus('fay@example.com')).toBe('bounced')
    const types = (
      await rowsOf<{ data: unknown }>(
        t,
        sql`SELECT data FROM events WHERE type = 'email.bounced' AND message_id = ${fay.id} ORDER BY seq`,
      )
    ).map((r) => jsonOf<{ bounce_type: string }>(r.data).bounce_type)
    expect(types).toEqual(['soft', 'hard'])
    const again = await post(dsn(fay, { action: 'delayed', status: '4.2.2', diagnostic: 'x' }), {
      to: fay.envelopeFrom,
    })
    expect(again.body.data.reason).toContain('already bounced')
  })

  test('a DSN to no VERP address is tied to its message by the returned Message-ID', async () => {
    const bob = m('bob@example.com')
    const raw = dsn(bob, {
      action: 'failed',
      status: '5.2.1',
      diagnostic: '550 5.2.1 mailbox disabled',
      headersOnly: true,
    }).replace(`To: ${bob.envelopeFrom}`, 'To: postmaster@in.example.com')
    const r = await post(raw)
    expect(r.body.data).toEqual({ kind: 'bounce', message_id: bob.id, bounce_type: 'hard' })
  })

  test('a success DSN (Action: delivered) records nothing', async () => {
    const cy = m('cy@example.com')
    const r = await post(dsn(cy, { action: 'delivered', status: '2.0.0', diagnostic: '250 ok' }))
    expect(r.body.data).toEqual({
      kind: 'ignored',
      reason: 'delivery report without a failed or delayed recipient',
    })
    expect(await contactStatus('cy@example.com')).toBe('subscribed')
  })

  test('an ARF report of type not-spam is no complaint; abuse is', async () => {
    const cy = m('cy@example.com')
    const notSpam = await post(arf(cy, 'not-spam'))
    expect(notSpam.body.data).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('not-spam') })
    const abuse = await post(arf(cy))
    expect(abuse.body.data).toEqual({ kind: 'complaint', message_id: cy.id })
    expect(await contactStatus('cy@example.com')).toBe('complained')
  })

  test('a text/plain reply that lost its reply+ address is tied by In-Reply-To', async () => {
    const dee = m('dee@example.com')
    const raw = await compose({
      from: 'dee@example.com',
      to: 'hello@acme.example',
      subject: 'Re: Hello',
      text: QUOTED_REPLY,
      inReplyTo: dee.messageId,
    })
    const r = await post(raw, { type: 'text/plain' })
    const { kind, message_id, reply_id } = r.body.data
    expect([kind, message_id]).toEqual(['reply', dee.id])
    const reply = await s.call('GET', `/api/v1/replies/${reply_id}`)
    expect(reply.snippet).toBe('Sounds great, please call me on Tuesday. Ann')
  })

  test('auto-replies and unknown or forged tokens are ignored, with a reason', async () => {
    const eve = m('eve@example.com')
    const before = await countEvents()
    const auto = await post(
      await compose({
        from: 'eve@example.com',
        to: eve.replyTo!,
        subject: 'Automatic reply',
        text: 'Away',
        headers: { 'X-Autoreply': 'yes', Precedence: 'auto_reply' },
      }),
    )
    expect(auto.body.data).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('auto-reply') })
    const r = await post(
      await compose({ from: 'x@evil.example', to: forge(eve.replyTo!), subject: 'Re', text: 'hi' }),
    )
    expect(r.body.data).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('forged') })
    const junk = await post('this is not a mail message at all')
    expect(junk.status).toBe(200)
    expect(junk.body.data.kind).toBe('ignored')
    expect(await countEvents()).toBe(before)
  })

  test('mail to the unsubscribe address (recipient in `to`) → unsubscribe', async () => {
    const eve = m('eve@example.com')
    const raw = await compose({
      from: 'eve@example.com',
      to: 'list@acme.example',
      subject: 'unsubscribe',
      text: '',
    })
    const r = await post(raw, { to: mailtoOf(eve) })
    expect(r.body.data).toEqual({ kind: 'unsubscribe', message_id: eve.id })
    expect(await contactStatus('eve@example.com')).toBe('unsubscribed')
  })

  test('another client’s admin key cannot act on this client’s messages', async () => {
    const other = await t.key({ scopes: ['admin:*'], clientId: await t.client('Other') })
    const dee = m('dee@example.com')
    const raw = await compose({ from: 'dee@example.com', to: dee.replyTo!, subject: 'Re', text: 'again' })
    const r = await post(raw, { key: other })
    expect(r.body.data).toMatchObject({ kind: 'ignored' })
    expect(r.body.data.message_id).toBeUndefined()
  })

  test('needs admin:*; an empty body is 422; a JSON body is 415', async () => {
    const key = await t.key({ scopes: ['replies:read', 'contacts:write'], clientId: s.clientId })
    const forbidden = await post(arf(m('cy@example.com')), { key })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error.details.required_scope).toBe('admin:*')
    const empty = await post('')
    expect(empty.status).toBe(422)
    expect(empty.body.error.code).toBe('VALIDATION_FAILED')
    expect((await post('{}', { type: 'application/json' })).status).toBe(415)
  })
})
