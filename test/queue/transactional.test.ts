import { afterAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { closeProviders, createProviders } from '../../src/channels/registry'
import { startSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { enqueueMessage } from '../../src/services/messages/enqueue'
import { createFeedback } from '../../src/services/messages/feedback'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { startDnsServer } from '../helpers/dns-server'
import { jsonOf, rowOf, rowsOf, runSql } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { startSink } from '../helpers/smtp-sink'

// A message outside any campaign (a transactional or test send) through the real outbox: the
// send worker claims it beside campaigns, renders its template or inline content, sends it, and
// records status, content and email.delivered (campaign_id null) as it does for campaigns.

const row = async (t: TestApp, id: string) =>
  (await rowOf<Record<string, unknown>>(
    t,
    sql`SELECT status, campaign_id, source_kind, source_id, provider, CAST(attempts AS INTEGER) AS attempts, error,
      CAST(delivered_at AS DOUBLE PRECISION) AS delivered_at FROM messages WHERE id = ${id}`,
  ))!
const content = async (t: TestApp, id: string) =>
  (await rowOf<{ subject: string; body_html: string | null; body_text: string | null; headers: unknown }>(
    t,
    sql`SELECT subject, body_html, body_text, headers FROM message_contents WHERE message_seq = (SELECT seq FROM messages WHERE id = ${id})`,
  ))!
const deliveredEvents = async (t: TestApp, id: string) =>
  await rowsOf<{ campaign_id: string | null; data: unknown }>(
    t,
    sql`SELECT campaign_id, data FROM events WHERE type = 'email.delivered' AND message_id = ${id}`,
  )

describe('a transactional message through the capture provider', async () => {
  const t = await createTestApp()
  const provider = recordingProvider()
  startTestSender(t, provider)

  test('one template to one contact: delivered, content stored, email.delivered with campaign_id null', async () => {
    const s = await campaignTenant(t, ['ann@example.com'])
    const tpl = await s.call('POST', '/api/v1/templates', {
      name: 'Receipt',
      subject: 'Order {{ order }} for {{ contact.first_name }}',
      body_html:
        '<p>Thanks {{ contact.first_name }}, order {{ order }}.</p><a href="https://shop.example/o">See</a>',
    })
    const m = await enqueueMessage(t.ctx, {
      clientId: s.clientId,
      contactId: s.contacts['ann@example.com']!,
      templateId: tpl.id,
      variables: { order: 'A-17' },
    })
    expect(m).toMatchObject({ status: 'queued', campaignId: null, channel: 'email', to: 'ann@example.com' })
    await eventually(async () => expect((await row(t, m.id)).status).toBe('delivered'))
    expect(await row(t, m.id)).toMatchObject({
      campaign_id: null,
      source_kind: null,
      source_id: null,
      provider: 'capture',
      attempts: 1,
      error: null,
    })
    const sent = provider.sent.find((o) => o.id === m.id)!
    if (sent.channel !== 'email') throw new Error('email expected')
    expect(sent.subject).toBe('Order A-17 for P0')
    expect(sent.messageId).toBe(`<${m.id}@herald.localhost>`)
    // Not bulk mail: no List-Unsubscribe; links are still tracked.
    expect(sent.headers['List-Unsubscribe']).toBeUndefined()
    const stored = await content(t, m.id)
    expect(stored.subject).toBe('Order A-17 for P0')
    expect(stored.body_html).toContain('<p>Thanks P0, order A-17.</p>')
    expect(stored.body_html).toMatch(/href="http:\/\/localhost:8080\/t\/c\/[\w-]+\.[\w-]+"/)
    expect(jsonOf(stored.headers)).toMatchObject({
      'message-id': `<${m.id}@herald.localhost>`,
      to: 'ann@example.com',
    })
    const events = await deliveredEvents(t, m.id)
    expect(events).toHaveLength(1)
    expect(events[0]!.campaign_id).toBeNull()
    expect(jsonOf(events[0]!.data)).toMatchObject({
      message_id: `msg_${m.id.replace(/-/g, '')}`,
      campaign_id: null,
      email: 'ann@example.com',
      channel: 'email',
    })
    // The API shows it like any message.
    const viaApi = await s.call('GET', `/api/v1/messages/${m.id}`)
    expect(viaApi).toMatchObject({ campaign_id: null, status: 'delivered', subject: 'Order A-17 for P0' })
  })

  test('inline content; an SMS to a contact without phone is skipped; a deleted template fails it', async () => {
    const s = await campaignTenant(t, ['bob@example.com'])
    const bob = s.contacts['bob@example.com']!
    const inline = await enqueueMessage(t.ctx, {
      clientId: s.clientId,
      contactId: bob,
      subject: 'Your code',
      bodyText: 'Code {{ code }} for {{ contact.email }}',
      variables: { code: '424242' },
    })
    const sms = await enqueueMessage(t.ctx, {
      clientId: s.clientId,
      contactId: bob,
      channel: 'sms',
      bodyText: 'Hi',
    })
    const tpl = await s.call('POST', '/api/v1/templates', { name: 'Gone', subject: 'S', body_text: 'x' })
    const doomed = await enqueueMessage(t.ctx, { clientId: s.clientId, contactId: bob, templateId: tpl.id })
    await runSql(t, sql`DELETE FROM templates WHERE id = ${tpl.id}`)
    await eventually(async () => {
      expect((await row(t, inline.id)).status).toBe('delivered')
      expect((await row(t, sms.id)).status).toBe('skipped')
      expect((await row(t, doomed.id)).status).toBe('failed')
    })
    expect((await content(t, inline.id)).body_text).toBe('Code 424242 for bob@example.com')
    expect(String((await row(t, doomed.id)).error)).toContain('template')
    // Campaign counters are not touched by messages of no campaign.
    expect(await s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
      sent: 0,
      skipped: 0,
    })
  })

  test('what could never be sent is refused at once', async () => {
    const s = await campaignTenant(t, ['cy@example.com'])
    const cy = s.contacts['cy@example.com']!
    expect(
      async () =>
        await enqueueMessage(t.ctx, { clientId: s.clientId, contactId: cy, bodyText: 'no subject' }),
    ).toThrow(/subject/)
    expect(
      async () =>
        await enqueueMessage(t.ctx, {
          clientId: await t.client('Other'),
          contactId: cy,
          subject: 'x',
          bodyText: 'y',
        }),
    ).toThrow(/contact_id: no such contact/)
  })
})

describe('a transactional message over real SMTP', async () => {
  const dns = await startDnsServer()
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  afterAll(() => sink.close())
  const t = await createTestApp({
    env: { HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, HERALD_DNS_SERVERS: dns.address },
  })
  const providers = createProviders(t.ctx.config, createFeedback(t.ctx))
  const worker = startSendWorker(t.ctx, sendDeps, { providers, pollMs: 10 })
  afterAll(async () => {
    await worker.stop()
    await closeProviders(providers)
  }, 20_000)

  test('received by the SMTP server; delivered on 250; bodies not kept', async () => {
    const s = await campaignTenant(t, ['dee@customer.example'])
    const domain = await s.call('POST', '/api/v1/domains', { domain: 'mail.example' })
    for (const r of domain.dns_records as { name: string; value: string; value_parts?: string[] }[])
      dns.zone.set(r.name, [r.value_parts ?? [r.value]])
    expect((await s.call('POST', `/api/v1/domains/${domain.id}/verify`)).verified).toBe(true)
    const sender = await s.call('POST', '/api/v1/senders', {
      from_email: 'hello@mail.example',
      from_name: 'Acme',
    })
    const m = await enqueueMessage(t.ctx, {
      clientId: s.clientId,
      contactId: s.contacts['dee@customer.example']!,
      senderId: sender.id,
      subject: 'Welcome {{ contact.first_name }}',
      bodyHtml: '<p>Hello {{ contact.first_name }}</p>',
    })
    await eventually(async () => expect((await row(t, m.id)).status).toBe('delivered'))
    expect(sink.received.map((r) => r.rcptTo[0])).toEqual(['dee@customer.example'])
    const mail = await simpleParser(sink.received[0]!.raw)
    expect(mail.subject).toBe('Welcome P0')
    expect(mail.messageId).toBe(`<${m.id}@mail.example>`)
    expect(mail.headers.has('dkim-signature')).toBe(true)
    expect(await row(t, m.id)).toMatchObject({ provider: 'smtp', campaign_id: null })
    expect(await content(t, m.id)).toMatchObject({ subject: 'Welcome P0', body_html: null })
    expect(await deliveredEvents(t, m.id)).toHaveLength(1)
  }, 20_000)
})
