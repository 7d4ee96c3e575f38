import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { withActor } from '../../../src/context'
import { registerJobs } from '../../../src/jobs'
import { systemActor } from '../../../src/services/actors/actor'
import { recordJobRunVerb } from '../../../src/services/jobs/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'
import { startDnsServer } from '../../helpers/dns-server'
import { rowOf } from '../../helpers/raw-sql'
import { startReceiver } from '../../helpers/receiver'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// Sending setup and administration pages over their verbs: senders, domains (verified against a
// real DNS server on loopback), webhooks (secret shown only on a POST, owners/admins only), jobs
// (run now), clients, users (owner only) and settings (secrets masked, where each value comes from).

setDefaultTimeout(60_000)
const dns = await startDnsServer()
const receiver = startReceiver()
afterAll(() => receiver.close())
const t = await createTestApp({
  env: {
    ...PORTAL_ENV,
    HERALD_DNS_SERVERS: dns.address,
    HERALD_SPF_INCLUDE: 'spf.herald.test',
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
    HERALD_TWILIO_AUTH_TOKEN: 'twilio-secret-token-xyz',
  },
})
registerJobs(t.ctx)
const idFrom = (location: string | null) => location!.split('/')[3]!

describe('/admin/senders', () => {
  test('create, list (unverified explained), edit, 422 next to the field, delete behind a confirmation', async () => {
    const b = await signIn(t)
    const bad = await b.post('/admin/senders', { from_email: 'not-an-email', from_name: 'News' })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="from_email-error"')
    const made = await b.post('/admin/senders', { from_email: 'news@shop.test', from_name: 'Shop news' })
    expect(made.status).toBe(303)
    const list = await b.get('/admin/senders')
    expect(list.text).toContain('Verify its domain before sending')
    expect(list.text).toContain('news@shop.test')
    expect(list.text).toContain('not verified — <a href="/admin/domains">')
    const id = /href="\/admin\/senders\/([^/"]+)\/edit"/.exec(list.text)![1]!
    expect((await b.get(`/admin/senders/${id}/edit`)).text).toContain('value="Shop news"')
    expect(
      (await b.post(`/admin/senders/${id}`, { from_email: 'news@shop.test', from_name: 'Shop' })).status,
    ).toBe(303)
    const confirm = await b.get(`/admin/senders/${id}/delete`)
    expect(confirm.text).toContain('Delete the sender news@shop.test?')
    expect((await b.post(`/admin/senders/${id}/delete`)).status).toBe(303)
    expect((await b.get('/admin/senders')).text).toContain('No senders yet')
  })
})

describe('/admin/domains', () => {
  test('records to copy (DKIM whole and in parts), verify through DNS, a wrong record shows found vs expected', async () => {
    const b = await signIn(t)
    const made = await b.post('/admin/domains', { domain: 'mail.shop.test' })
    expect(made.status).toBe(303)
    const id = idFrom(made.location)
    const show = await b.get(`/admin/domains/${id}`)
    expect(show.text).toContain('data-copy="#rec-dkim-value"')
    expect(show.text).toContain('data-copy="#rec-spf-value"')
    expect(show.text).toContain('data-copy="#rec-dmarc-value"')
    const d = (await t.call('GET', `/api/v1/domains/${id}`)).body.data
    const rec = (p: string) => d.dns_records.find((r: { purpose: string }) => r.purpose === p)
    expect(show.text).toContain(`value="${rec('dkim').value}"`)
    expect(show.text).toContain(`"${rec('dkim').value_parts[0]}"`)
    dns.zone.set(rec('dkim').name, [rec('dkim').value_parts])
    dns.zone.set(rec('spf').name, [['v=spf1 include:other.test ~all']])
    dns.zone.set(rec('dmarc').name, [[rec('dmarc').value]])
    const verified = await b.post(`/admin/domains/${id}/verify`)
    expect(verified.status).toBe(303)
    const after = await b.get(`/admin/domains/${id}`)
    expect(after.text).toContain('is not verified yet: SPF failed')
    expect(after.text).toContain('data-check="spf"')
    expect(after.text).not.toContain('data-check="dkim"')
    expect(after.text).toContain('<code>v=spf1 include:other.test ~all</code>')
    expect(after.text).toContain('does not authorise Herald')
    dns.zone.set(rec('spf').name, [[rec('spf').value]])
    await b.post(`/admin/domains/${id}/verify`)
    expect((await b.get(`/admin/domains/${id}`)).text).toContain('is verified')
    expect((await b.get(`/admin/domains/${id}/delete`)).text).toContain('Delete the domain mail.shop.test?')
  })

  test('warm-up: shown on the page, switched off and on again with its button', async () => {
    const b = await signIn(t)
    const id = idFrom((await b.post('/admin/domains', { domain: 'reputed.shop.test' })).location)
    const warmup = async () =>
      /<section id="domain-warmup"[\s\S]*?<\/section>/.exec((await b.get(`/admin/domains/${id}`)).text)![0]
    expect(await warmup()).toContain('Turn warm-up off')
    const off = await b.post(`/admin/domains/${id}/warmup`, { warmup: 'off' })
    expect(off.status).toBe(303)
    expect((await t.call('GET', `/api/v1/domains/${id}`)).body.data.warmup).toBe(false)
    expect(await warmup()).toContain('Off: the domain')
    await b.post(`/admin/domains/${id}/warmup`, { warmup: 'on' })
    expect((await t.call('GET', `/api/v1/domains/${id}`)).body.data.warmup).toBe(true)
    expect(await warmup()).toContain('Turn warm-up off')
  })
})

describe('roles on senders and domains', () => {
  test("a member of another client gets 404 for this workspace's sender and domain; a viewer cannot POST", async () => {
    const b = await signIn(t)
    const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
    const sender = (
      await t.call('POST', '/api/v1/senders', { key, body: { from_email: 'a@roles.test', from_name: 'A' } })
    ).body.data
    const made = await b.post('/admin/domains', { domain: 'roles.test' })
    const domainId = idFrom(made.location)
    const member = await signIn(
      t,
      await makeUser(t, { role: 'member', clients: [await t.client('Roles other client')] }),
    )
    expect((await member.get(`/admin/senders/${sender.id}/edit`)).status).toBe(404)
    expect((await member.get(`/admin/domains/${domainId}`)).status).toBe(404)
    expect((await member.post(`/admin/domains/${domainId}/verify`)).status).toBe(404)
    // Switching warm-up takes admin:*, which a member's role has not: refused before the look-up.
    expect((await member.post(`/admin/domains/${domainId}/warmup`, { warmup: 'off' })).status).toBe(403)
    expect((await member.get('/admin/senders')).text).not.toContain('a@roles.test')
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.get(`/admin/domains/${domainId}`)).status).toBe(200)
    expect((await viewer.post(`/admin/senders/${sender.id}/delete`)).status).toBe(403)
    expect((await viewer.post('/admin/domains', { domain: 'viewer.test' })).status).toBe(403)
    expect((await viewer.post(`/admin/domains/${domainId}/warmup`, { warmup: 'off' })).status).toBe(403)
    expect((await t.call('GET', `/api/v1/domains/${domainId}`)).body.data.warmup).toBe(true)
  })
})

describe('/admin/webhooks', () => {
  test('create shows the secret once; reveal is a POST after a confirmation, owners/admins only; test send logs the attempt', async () => {
    const b = await signIn(t)
    const made = await b.post('/admin/webhooks', { url: receiver.url, events: ['email.delivered'] })
    expect(made.status).toBe(200)
    const secret = /id="secret" type="text" readonly value="(whsec_[^"]+)"/.exec(made.text)![1]!
    const list = await b.get('/admin/webhooks')
    expect(list.text).not.toContain(secret)
    const id = /href="\/admin\/webhooks\/([0-9a-f-]{36})"/.exec(list.text)![1]!
    const show = await b.get(`/admin/webhooks/${id}`)
    expect(show.text).not.toContain(secret)
    expect(show.text).toContain('No deliveries yet')
    expect((await b.get(`/admin/webhooks/${id}/secret`)).text).not.toContain(secret)
    expect((await b.post(`/admin/webhooks/${id}/secret`)).text).toContain(secret)

    const sent = await b.post(`/admin/webhooks/${id}/test`, { event: 'email.opened' })
    expect(sent.status).toBe(303)
    const log = await b.get(`/admin/webhooks/${id}`)
    expect(log.text).toMatch(/Test event delivered: HTTP 204/)
    expect(log.text).toContain('email.opened (test)')
    expect(log.text).toMatch(/HTTP 204 in \d+ ms/)
    const badEvent = await b.post(`/admin/webhooks/${id}/test`, { event: 'nope' })
    expect(badEvent.status).toBe(422)
    expect(badEvent.text).toContain('id="event-error"')

    // A failed attempt is logged with the start of the answer, and can be retried.
    receiver.respond = () => new Response('upstream says no', { status: 500 })
    expect((await b.post(`/admin/webhooks/${id}/test`, { event: 'email.clicked' })).status).toBe(303)
    const failed = await b.get(`/admin/webhooks/${id}`)
    expect(failed.text).toContain('The test event was not accepted: HTTP 500')
    expect(failed.text).toMatch(/HTTP 500 in \d+ ms<br><small>Response: <code>upstream says no<\/code>/)
    receiver.respond = () => new Response(null, { status: 204 })
    const deliveryId = /\/deliveries\/([0-9a-f-]{36})\/retry/.exec(failed.text)![1]!
    const retried = await b.post(`/admin/webhooks/${id}/deliveries/${deliveryId}/retry`)
    expect(retried.status).toBe(303)
    expect((await b.get(`/admin/webhooks/${id}`)).text).toContain('The delivery is due again')

    expect((await b.post(`/admin/webhooks/${id}/active`, { active: 'false' })).status).toBe(303)
    expect((await b.get('/admin/webhooks')).text).toContain('<strong>disabled</strong>')

    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.get(`/admin/webhooks/${id}`)).status).toBe(200)
    expect((await member.get(`/admin/webhooks/${id}`)).text).not.toContain('Reveal secret')
    expect((await member.post(`/admin/webhooks/${id}/secret`)).status).toBe(403)
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.post(`/admin/webhooks/${id}/rotate`)).status).toBe(403)
  })

  test('a member of another client gets 404 for this webhook', async () => {
    const b = await signIn(t)
    await b.post('/admin/webhooks', { url: receiver.url, events: ['email.bounced'] })
    const id = /href="\/admin\/webhooks\/([0-9a-f-]{36})"/.exec((await b.get('/admin/webhooks')).text)![1]!
    const other = await t.call('POST', '/api/v1/clients', { body: { name: 'Other agency client' } })
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [other.body.data.id] }))
    expect((await member.get(`/admin/webhooks/${id}`)).status).toBe(404)
  })
})

describe('/admin/jobs, /admin/clients, /admin/users, /admin/settings', () => {
  test('jobs listed with schedules; run now records outcome and duration; members refused', async () => {
    const b = await signIn(t)
    const list = await b.get('/admin/jobs')
    expect(list.text).toContain('<code>segments.refresh</code>')
    expect(list.text).toContain('<code>*/15 * * * *</code>')
    expect(list.text).toContain('not since start')
    const ran = await b.post('/admin/jobs/segments.refresh/run')
    expect(ran.status).toBe(303)
    const after = await b.get('/admin/jobs')
    expect(after.text).toMatch(/Ran segments\.refresh in [\d.]+ ms/)
    expect(after.text).toMatch(/<td>ok<\/td>\s*<td>[\d.,]+ ms<\/td>/)
    expect((await b.post('/admin/jobs/no.such/run')).status).toBe(404)
    // Stored through jobs.record-run: a run by another process (herald jobs run) shows too.
    const stored = await rowOf(t, sql`SELECT outcome FROM job_runs WHERE name = 'segments.refresh'`)
    expect(stored).toEqual({ outcome: 'ok' })
    await invoke(recordJobRunVerb, withActor(t.ctx, systemActor('job:idempotency.purge'), 'test'), {
      name: 'idempotency.purge',
      started_at: Date.now(),
      outcome: 'failed',
      duration_ms: 12,
      error: 'disk <b>full</b>',
    })
    const elsewhere = await b.get('/admin/jobs')
    expect(elsewhere.text).toContain('<strong>failed</strong>: disk &lt;b&gt;full&lt;/b&gt;')
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.post('/admin/jobs/segments.refresh/run')).status).toBe(403)
  })

  test('clients: create, suspend behind a confirmation, reactivate', async () => {
    const b = await signIn(t)
    expect((await b.post('/admin/clients', { name: '' })).status).toBe(422)
    expect((await b.post('/admin/clients', { name: 'Bakery' })).status).toBe(303)
    const list = await b.get('/admin/clients')
    const rowId = /<td>Bakery<\/td>[\s\S]*?href="\/admin\/clients\/([^/"]+)\/status"/.exec(list.text)![1]!
    expect((await b.get(`/admin/clients/${rowId}/status`)).text).toContain('Suspend Bakery?')
    expect((await b.post(`/admin/clients/${rowId}/status`, { status: 'suspended' })).status).toBe(303)
    expect((await b.get(`/admin/clients/${rowId}/status`)).text).toContain('Reactivate Bakery?')
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.post('/admin/clients', { name: 'X' })).status).toBe(403)
  })

  test('users: owner only; create a member with clients, a generated password shown once, reset, delete', async () => {
    const b = await signIn(t)
    const created = await b.post('/admin/users', {
      email: 'new.member@example.com',
      role: 'member',
      clients: [t.defaultClientId],
    })
    expect(created.status).toBe(200)
    const pw = /id="new-password" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!
    const member = await signIn(t, { email: 'new.member@example.com', password: pw })
    expect((await member.get('/admin/users')).status).toBe(403)
    const list = await b.get('/admin/users')
    const id =
      /href="\/admin\/users\/([^/"]+)\/edit"><\/?[^>]*>?Edit<span class="visually-hidden"> new\.member/.exec(
        list.text,
      )?.[1] ??
      /\/admin\/users\/([^/"]+)\/edit">Edit<span class="visually-hidden"> new\.member@example\.com/.exec(
        list.text,
      )![1]!
    expect((await b.post(`/admin/users/${id}`, { role: 'viewer' })).status).toBe(303)
    expect((await b.get('/admin/users')).text).toContain('Saved new.member@example.com (viewer)')
    const reset = await b.post(`/admin/users/${id}/password`, { password: 'short' })
    expect(reset.status).toBe(422)
    expect(reset.text).toContain('id="password-error"')
    expect((await b.post(`/admin/users/${id}/password`)).text).toContain('shown only once')
    expect((await b.get(`/admin/users/${id}/delete`)).text).toContain(
      'Delete the user new.member@example.com?',
    )
    expect((await b.post(`/admin/users/${id}/delete`)).status).toBe(303)
    const admin = await signIn(t, await makeUser(t, { role: 'admin' }))
    expect((await admin.post('/admin/users', { email: 'x@example.com', role: 'viewer' })).status).toBe(403)
  })

  test('settings: values with where they come from, secrets masked', async () => {
    const b = await signIn(t)
    const page = await b.get('/admin/settings')
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('twilio-secret-token-xyz')
    expect(page.text).not.toContain('owner-password-123')
    expect(page.text).toMatch(
      /<code>HERALD_TWILIO_AUTH_TOKEN<\/code><\/td>\s*<td><code>\*+ \(set\)<\/code><\/td>\s*<td>environment<\/td>/,
    )
    expect(page.text).toMatch(
      /<code>HERALD_SPF_INCLUDE<\/code><\/td>\s*<td><code>spf.herald.test<\/code><\/td>\s*<td>environment<\/td>/,
    )
    expect(page.text).toMatch(
      /<code>HERALD_SMTP_POOL<\/code><\/td>\s*<td><code>5<\/code><\/td>\s*<td>default<\/td>/,
    )
    expect(page.text).toMatch(
      /<code>HERALD_DATA_DIR<\/code> \/ <code>--data<\/code><\/td>\s*<td><code>[^<]+<\/code><\/td>\s*<td>flag --data<\/td>/,
    )
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.get('/admin/settings')).status).toBe(403)
  })
})
