import { afterAll, describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { createTestApp } from '../helpers/app'
import { jsonOf, rowOf } from '../helpers/raw-sql'
import { invalid, scenarios } from '../helpers/scenarios'
import { startSink } from '../helpers/smtp-sink'

// A client's own sending accounts: read with secrets masked, replaced whole (a secret left out
// is kept), stored encrypted; a tenant reaches only its own client, and its relay must be on a
// public address; the test action names the step that failed.

const t = await createTestApp()
const acme = await t.client('Acme')
const other = await t.client('Other')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const acmeWriter = await t.key({ scopes: ['campaigns:write'], clientId: acme })
const path = (id = acme) => `/api/v1/clients/${id}/sending`
const put = async (body: unknown, key = t.adminKey, id = acme) => t.call('PUT', path(id), { key, body })
const sendgridKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64')
const rsaKey = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64')
const otherSender = (
  await t.call('POST', '/api/v1/senders', {
    key: await t.key({ scopes: ['admin:*'], clientId: other }),
    body: { from_email: 'o@other.example', from_name: 'O' },
  })
).body.data.id as string

describe('GET and PUT /clients/{id}/sending', () => {
  test('a client without a profile inherits everything; no feedback URLs yet', async () => {
    const r = await t.call('GET', path())
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      client_id: acme,
      email: { provider: 'inherit', smtp_url: null },
      sms: { provider: 'inherit', auth_token_set: false },
      feedback: { urls: null },
      version: 0,
    })
  })

  test('an SMTP URL is masked in every answer and stored encrypted; a PUT without it keeps it', async () => {
    const r = await put({
      email: { provider: 'smtp', smtp_url: 'smtp://acme:hunter2@smtp.acme.example:587', pool: 3 },
    })
    expect(r.status).toBe(200)
    expect(r.body.data.email).toEqual({
      provider: 'smtp',
      smtp_url: 'smtp://acme:•••@smtp.acme.example:587',
      pool: 3,
      throttles: {},
      hourly_cap: null,
    })
    expect(r.text).not.toContain('hunter2')
    const stored = (await rowOf<{ profile: unknown }>(
      t,
      sql`SELECT profile FROM sending_profiles WHERE client_id = ${acme}`,
    ))!
    expect(JSON.stringify(stored.profile)).not.toContain('hunter2')
    expect(jsonOf<{ email: { smtp_url: string } }>(stored.profile).email.smtp_url).toStartWith('v1:')
    const again = await put({ email: { provider: 'smtp', pool: 5 }, footer: { company: 'Acme Ltd' } })
    expect(again.status).toBe(200)
    expect(again.body.data.email.smtp_url).toBe('smtp://acme:•••@smtp.acme.example:587')
    expect(again.body.data.version).toBe(r.body.data.version + 1)
    expect((await t.call('GET', path())).body.data.footer).toEqual({
      company: 'Acme Ltd',
      postal_address: null,
    })
  })

  test('feedback URLs name the client by a token; rotate_token replaces it', async () => {
    const a = (await put({ feedback: { sendgrid: { public_key: sendgridKey } } })).body.data.feedback
    expect(a.urls.sendgrid).toMatch(/\/hooks\/sendgrid\/[A-Za-z0-9]{24,}$/)
    const b = (await put({ feedback: { sendgrid: { public_key: sendgridKey } } })).body.data.feedback
    expect(b.urls).toEqual(a.urls)
    const c = (await put({ feedback: { rotate_token: true } })).body.data.feedback
    expect(c.urls.ses).not.toBe(a.urls.ses)
    expect(c.sendgrid).toBeNull()
  })

  test('a tenant admin reaches its own client; its relay must be on a public address', async () => {
    expect((await t.call('GET', path(), { key: acmeAdmin })).status).toBe(200)
    const local = await put({ email: { provider: 'smtp', smtp_url: 'smtp://u:p@127.0.0.1:2525' } }, acmeAdmin)
    expect(local.status).toBe(422)
    expect(local.body.error.details[0]).toMatchObject({
      field: 'email.smtp_url',
      message: expect.stringMatching(/public address/),
    })
    // A name is judged by what it resolves to.
    const named = await put({ email: { provider: 'smtp', smtp_url: 'smtp://u:p@localhost:2525' } }, acmeAdmin)
    expect(named.status).toBe(422)
    expect(named.body.error.details[0].message).toMatch(
      /must resolve to a public address \(localhost resolves to/,
    )
    // A platform-wide caller may name the agency's own relay on loopback.
    expect((await put({ email: { provider: 'smtp', smtp_url: 'smtp://u:p@127.0.0.1:2525' } })).status).toBe(
      200,
    )
  })

  scenarios(t, { method: 'PUT', path: path() }, [
    invalid('smtp without a URL on a new profile', { email: { provider: 'smtp' } }, 'email.smtp_url', {
      path: path(other),
    }),
    invalid(
      'an SMTP URL of another scheme',
      { email: { provider: 'smtp', smtp_url: 'http://x.example' } },
      'email.smtp_url',
    ),
    invalid(
      'twilio without its token',
      { sms: { provider: 'twilio', twilio_account_sid: 'AC1' } },
      'sms.twilio_auth_token',
      {
        path: path(other),
      },
    ),
    invalid('a sender number that is not E.164', { sms: { provider: 'capture', from: '0612' } }, 'sms.from'),
    invalid(
      'a SendGrid key that is not P-256',
      { feedback: { sendgrid: { public_key: rsaKey } } },
      'feedback.sendgrid.public_key',
    ),
    invalid(
      'another client’s sender as the default',
      { default_sender_id: otherSender },
      'default_sender_id',
    ),
    invalid('an unknown provider', { email: { provider: 'ses' } }, 'email.provider'),
    {
      name: 'another client through a tenant key',
      path: path(other),
      key: () => acmeAdmin,
      body: {},
      status: 404,
    },
    { name: 'a tenant key without admin:*', key: () => acmeWriter, body: {}, status: 403 },
  ])
})

describe('POST /clients/{id}/sending/test', async () => {
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  const tlsSink = await startSink()
  afterAll(() => Promise.all([sink.close(), tlsSink.close()]))
  const test_ = (channel: string, id = other) => t.call('POST', `${path(id)}/test`, { body: { channel } })

  test('SMTP: the right password logs in; a wrong one says AUTH failed with the server’s reply', async () => {
    await put(
      { email: { provider: 'smtp', smtp_url: `smtp://herald:s3cret@127.0.0.1:${sink.port}` } },
      t.adminKey,
      other,
    )
    const ok = await test_('email')
    expect(ok.body.data).toMatchObject({ ok: true, detail: expect.stringMatching(/logged in/) })
    await put(
      { email: { provider: 'smtp', smtp_url: `smtp://herald:wrong@127.0.0.1:${sink.port}` } },
      t.adminKey,
      other,
    )
    const bad = await test_('email')
    expect(bad.status).toBe(200)
    expect(bad.body.data.ok).toBe(false)
    expect(bad.body.data.detail).toMatch(/^AUTH failed: 535/)
    expect(sink.received).toHaveLength(0)
  })

  test('SMTP: a certificate the server offers for STARTTLS and we refuse says STARTTLS failed', async () => {
    await put(
      { email: { provider: 'smtp', smtp_url: `smtp://herald:s3cret@127.0.0.1:${tlsSink.port}` } },
      t.adminKey,
      other,
    )
    expect((await test_('email')).body.data).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^STARTTLS failed: /),
    })
  })

  test('SMTP: nothing listening says connect failed', async () => {
    const closed = await startSink()
    const port = closed.port
    await closed.close()
    await put(
      { email: { provider: 'smtp', smtp_url: `smtp://herald:s3cret@127.0.0.1:${port}` } },
      t.adminKey,
      other,
    )
    expect((await test_('email')).body.data).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^connect failed/),
    })
  })

  test('Twilio: the account is read with the client’s credentials', async () => {
    const seen: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        seen.push(`${new URL(req.url).pathname} ${req.headers.get('authorization')}`)
        const good = req.headers.get('authorization') === `Basic ${btoa('AC123:tok')}`
        return good ? Response.json({ sid: 'AC123' }) : new Response('no', { status: 401 })
      },
    })
    try {
      const base = `http://127.0.0.1:${server.port}`
      const sms = (token: string) => ({
        provider: 'twilio',
        twilio_account_sid: 'AC123',
        twilio_auth_token: token,
        twilio_base_url: base,
        from: '+14155550100',
      })
      await put({ sms: sms('tok') }, t.adminKey, other)
      expect((await test_('sms')).body.data).toMatchObject({ ok: true })
      expect(seen[0]).toStartWith('/2010-04-01/Accounts/AC123.json Basic ')
      await put({ sms: sms('bad') }, t.adminKey, other)
      expect((await test_('sms')).body.data).toEqual({ ok: false, detail: 'AUTH failed: 401' })
    } finally {
      server.stop(true)
    }
  })
})
