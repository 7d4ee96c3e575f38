import { afterAll, describe, expect, test } from 'bun:test'
import { createHmac, createSign, generateKeyPairSync, sign } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { espFeedbackPlugin } from '../../src/http/public/esp-feedback'
import { loggedPath } from '../../src/http/rest/logged-path'
import { fanOut } from '../../src/webhooks/fanout'
import { BASE, createTestApp } from '../helpers/app'
import { jsonOf, rowOf, rowsOf, runSql } from '../helpers/raw-sql'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { selfSignedCert } from '../helpers/smtp-sink'
import { type EmailOut, sendCampaign } from '../inbound/fixtures'

// POST /hooks/{provider}/{token}: each ESP's own payloads, signed as the provider signs them
// (an SNS signing certificate served over HTTPS by a local server named in HERALD_SNS_CERT_HOSTS,
// Postmark Basic credentials, Mailgun HMAC, SendGrid ECDSA P-256), recorded as a DSN or ARF is.

const pem = selfSignedCert()
if (!pem) throw new Error('openssl is needed to make the SNS signing certificate')
let certFetches = 0
const CERT_PATH = '/SimpleNotificationService-0123456789abcdef.pem'
const certServer = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  tls: { cert: pem.cert, key: pem.key },
  fetch(req) {
    if (new URL(req.url).pathname !== CERT_PATH) return new Response('no', { status: 404 })
    certFetches++
    return new Response(pem.cert)
  },
})
const subscribed: string[] = []
const snsApi = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch(req) {
    subscribed.push(req.url)
    return new Response('<ConfirmSubscriptionResponse/>', { headers: { 'content-type': 'text/xml' } })
  },
})
afterAll(() => {
  certServer.stop(true)
  snsApi.stop(true)
})
const CERT_URL = `https://127.0.0.1:${certServer.port}${CERT_PATH}`

const t = await createTestApp({
  env: { HERALD_SNS_CERT_HOSTS: `127.0.0.1:${certServer.port}`, HERALD_WEBHOOK_ALLOW_PRIVATE: '1' },
})
// The same door as the app's, trusting the test certificate server's self-signed certificate.
const hooks = espFeedbackPlugin(t.ctx, { tls: { ca: pem.cert } })
const provider = recordingProvider()
startTestSender(t, provider)

const EMAILS = ['ann@example.com', 'bob@example.com', 'cy@example.com', 'dee@example.com', 'eve@example.com']
const EMAILS2 = ['fay@example.com', 'gus@example.com', 'hal@example.com', 'ivy@example.com', 'jo@example.com']
const s = await sendCampaign(t, provider, [...EMAILS, ...EMAILS2])
const m = (email: string) => s.out[email] as EmailOut

const sendgridKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const sendgridPublic = sendgridKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
const MAILGUN_KEY = 'key-mailgun-signing-0123456789'
const profile = await s.call('PUT', `/api/v1/clients/${s.clientId}/sending`, {
  feedback: {
    ses: { enabled: true },
    postmark: { username: 'herald', password: 'pm-secret' },
    mailgun: { signing_key: MAILGUN_KEY },
    sendgrid: { public_key: sendgridPublic },
  },
})
const TOKEN = new URL(profile.feedback.urls.ses).pathname.split('/')[3]!
// Another client, with only Postmark set up.
const other = await t.client('Other')
const otherKey = await t.key({ scopes: ['admin:*'], clientId: other })
const otherProfile = (
  await t.call('PUT', `/api/v1/clients/${other}/sending`, {
    key: otherKey,
    body: { feedback: { postmark: { username: 'other', password: 'other-secret' } } },
  })
).body.data
const OTHER_TOKEN = new URL(otherProfile.feedback.urls.ses).pathname.split('/')[3]!

const hook = await s.call('POST', '/api/v1/webhooks', {
  url: 'http://127.0.0.1:9/hook',
  events: ['email.bounced', 'email.delivered'],
})

const post = (path: string, body: string, headers: Record<string, string> = {}, via = hooks) =>
  via.handle(
    new Request(`${BASE}/hooks/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }),
  )

/** Everything a notification could change: events, suppressions, contacts, messages, rollups. */
const snapshot = async () => ({
  events: (await rowOf<{ n: number }>(t, sql`SELECT CAST(count(*) AS INTEGER) AS n FROM events`))!.n,
  suppressed: (
    await rowsOf<{ email: string; source: string }>(
      t,
      sql`SELECT email, source FROM suppressions ORDER BY email`,
    )
  ).map((r) => `${r.email}:${r.source}`),
  contacts: (await rowsOf<{ status: string }>(t, sql`SELECT status FROM contacts ORDER BY email`)).map(
    (r) => r.status,
  ),
  messages: (
    await rowsOf<{ status: string; bounced_at: unknown; complained_at: unknown }>(
      t,
      sql`SELECT status, CAST(bounced_at AS DOUBLE PRECISION) AS bounced_at,
            CAST(complained_at AS DOUBLE PRECISION) AS complained_at FROM messages ORDER BY seq`,
    )
  ).map((r) => `${r.status}${r.bounced_at ?? ''}${r.complained_at ?? ''}`),
  rollups: await rowOf(
    t,
    sql`SELECT CAST(sum(bounced) AS DOUBLE PRECISION) AS bounced, CAST(sum(complained) AS DOUBLE PRECISION) AS complained,
          CAST(sum(delivered) AS DOUBLE PRECISION) AS delivered FROM analytics_rollups`,
  ),
})
const contactStatus = async (email: string) =>
  (await rowOf<{ status: string }>(t, sql`SELECT status FROM contacts WHERE email = ${email}`))!.status
const suppression = async (email: string) =>
  (await rowOf<{ source: string }>(t, sql`SELECT source FROM suppressions WHERE email = ${email}`))?.source ??
  null
const eventsOf = async (messageId: string, type: string) =>
  (
    await rowsOf<{ data: unknown }>(
      t,
      sql`SELECT data FROM events WHERE message_id = ${messageId} AND type = ${type} ORDER BY seq`,
    )
  ).map((r) => jsonOf<Record<string, unknown>>(r.data))
const deliveriesOf = async (type: string) => {
  while ((await fanOut(t.ctx)).more) {}
  return (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_deliveries
      WHERE webhook_id = ${hook.id.replace(/^wh_/, '')} AND event_type = ${type}`,
  ))!.n
}
/** As if the relay had taken the message without knowing yet whether it was delivered. */
const markSent = async (messageId: string, providerMessageId: string | null = null) =>
  await runSql(
    t,
    sql`UPDATE messages SET status = 'sent', delivered_at = NULL, provider_message_id = ${providerMessageId}
      WHERE id = ${messageId}`,
  )
const stats = async () => s.call('GET', `/api/v1/campaigns/${s.campaign.id}/stats`)

// --- Amazon SNS ---------------------------------------------------------------------------------

const NOTIFICATION_KEYS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
const SUBSCRIPTION_KEYS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type']
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:herald-feedback'
let snsSeq = 0

/** An SNS message, signed as SNS signs (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA). */
function snsMessage(fields: Record<string, string>, version: '1' | '2' = '1', certUrl = CERT_URL) {
  const msg: Record<string, string> = {
    MessageId: `22b80b92-fdea-4c2c-8f9d-bdfb0c7bf3${String(++snsSeq).padStart(2, '0')}`,
    TopicArn: TOPIC,
    Timestamp: new Date().toISOString(),
    SignatureVersion: version,
    SigningCertURL: certUrl,
    ...fields,
  }
  const keys = msg.Type === 'Notification' ? NOTIFICATION_KEYS : SUBSCRIPTION_KEYS
  const canonical = keys
    .filter((k) => msg[k] !== undefined)
    .map((k) => `${k}\n${msg[k]}\n`)
    .join('')
  msg.Signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
    .update(canonical)
    .sign(pem!.key, 'base64')
  return JSON.stringify(msg)
}

/** The SES event for a message, as SES notifications publish it. */
function sesEvent(out: EmailOut, type: 'Bounce' | 'Complaint' | 'Delivery', extra: object, sesId = 'x') {
  return JSON.stringify({
    notificationType: type,
    ...extra,
    mail: {
      timestamp: '2026-11-28T10:00:00.000Z',
      source: 'news@acme.example',
      sourceArn: 'arn:aws:ses:eu-west-1:123456789012:identity/acme.example',
      sendingAccountId: '123456789012',
      messageId: sesId,
      destination: [out.to],
      headersTruncated: false,
      headers: [
        { name: 'From', value: 'news@acme.example' },
        { name: 'To', value: out.to },
        { name: 'Message-ID', value: out.messageId },
        { name: 'Subject', value: out.subject },
      ],
      commonHeaders: {
        from: ['news@acme.example'],
        to: [out.to],
        messageId: out.messageId,
        subject: out.subject,
      },
    },
  })
}
const notification = (message: string, version: '1' | '2' = '1', certUrl = CERT_URL) =>
  snsMessage({ Type: 'Notification', Message: message }, version, certUrl)
/** A bounce notification about `out` (one recipient unless `bounce` says otherwise). */
const sesBounce = (out: EmailOut, bounceType: string, bounce: object = {}, version: '1' | '2' = '1') =>
  notification(
    sesEvent(out, 'Bounce', {
      bounce: { bounceType, bouncedRecipients: [{ emailAddress: out.to }], ...bounce },
    }),
    version,
  )
const snsHeaders = (type: string) => ({
  'content-type': 'text/plain; charset=UTF-8',
  'x-amz-sns-message-type': type,
  'x-amz-sns-topic-arn': TOPIC,
})

describe('SES through SNS', () => {
  test('a signed SubscriptionConfirmation is confirmed by visiting its SubscribeURL', async () => {
    const subscribeUrl = `http://127.0.0.1:${snsApi.port}/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=abc`
    const body = snsMessage({
      Type: 'SubscriptionConfirmation',
      Token: 'abc',
      Message: `You have chosen to subscribe to the topic ${TOPIC}.`,
      SubscribeURL: subscribeUrl,
    })
    // Not for a client whose profile does not enable SES.
    expect((await post(`ses/${OTHER_TOKEN}`, body, snsHeaders('SubscriptionConfirmation'))).status).toBe(401)
    expect(subscribed).toEqual([])
    const r = await post(`ses/${TOKEN}`, body, snsHeaders('SubscriptionConfirmation'))
    expect(r.status).toBe(200)
    expect(await r.json()).toMatchObject({ confirmed: true })
    expect(subscribed).toEqual([subscribeUrl])
  })

  test('a permanent bounce (SHA256 signature) → hard bounce, suppression, email.bounced webhook; a repeat counts once', async () => {
    const ann = m('ann@example.com')
    const body = sesBounce(
      ann,
      'Permanent',
      {
        feedbackId: '0100017a-feedback',
        bounceSubType: 'General',
        bouncedRecipients: [
          {
            emailAddress: ann.to,
            action: 'failed',
            status: '5.1.1',
            diagnosticCode: 'smtp; 550 5.1.1 user unknown',
          },
        ],
        timestamp: '2026-11-28T10:00:05.000Z',
        reportingMTA: 'dsn; a8-30.smtp-out.amazonses.com',
      },
      '2',
    )
    const r = await post(`ses/${TOKEN}`, body, snsHeaders('Notification'))
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ recorded: 1, ignored: 0 })
    expect(await contactStatus(ann.to)).toBe('bounced')
    expect(await suppression(ann.to)).toBe('hard_bounce')
    expect(await eventsOf(ann.id, 'email.bounced')).toEqual([
      expect.objectContaining({
        bounce_type: 'hard',
        status_code: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 user unknown',
      }),
    ])
    expect(await deliveriesOf('email.bounced')).toBe(1)
    const before = await snapshot()
    expect((await post(`ses/${TOKEN}`, body, snsHeaders('Notification'))).status).toBe(200)
    expect(await snapshot()).toEqual(before)
    expect((await stats()).bounced).toBe(1)
    expect(await deliveriesOf('email.bounced')).toBe(1)
  })

  test('a transient bounce is soft: counted, the address not suppressed', async () => {
    const bob = m('bob@example.com')
    const body = sesBounce(bob, 'Transient', { bounceSubType: 'MailboxFull' })
    expect((await post(`ses/${TOKEN}`, body)).status).toBe(200)
    expect(await eventsOf(bob.id, 'email.bounced')).toEqual([
      expect.objectContaining({ bounce_type: 'soft' }),
    ])
    expect(await suppression(bob.to)).toBeNull()
    expect(await contactStatus(bob.to)).toBe('subscribed')
  })

  test('a complaint matched by the SES message id → suppression; a repeat changes nothing', async () => {
    const cy = m('cy@example.com')
    const sesId = '0102018c1f2e3d4c-5b6a7980-aaaa-bbbb-cccc-0123456789ab-000000'
    await markSent(cy.id, sesId)
    const body = notification(
      JSON.stringify({
        ...JSON.parse(sesEvent(cy, 'Complaint', {}, sesId)),
        mail: { messageId: sesId, destination: [cy.to] },
        complaint: {
          complainedRecipients: [{ emailAddress: cy.to }],
          timestamp: '2026-11-28T10:05:00.000Z',
          feedbackId: '0102018c-feedback',
          complaintFeedbackType: 'abuse',
        },
      }),
    )
    expect(await (await post(`ses/${TOKEN}`, body)).json()).toEqual({ recorded: 1, ignored: 0 })
    expect(await contactStatus(cy.to)).toBe('complained')
    expect(await suppression(cy.to)).toBe('complaint')
    const before = await snapshot()
    expect((await post(`ses/${TOKEN}`, body)).status).toBe(200)
    expect(await snapshot()).toEqual(before)
  })

  test('a delivery marks a sent message delivered, once', async () => {
    const dee = m('dee@example.com')
    await markSent(dee.id)
    const delivered = await deliveriesOf('email.delivered')
    // The send itself recorded one (the relay took it): this says delivered again, once.
    const events = (await eventsOf(dee.id, 'email.delivered')).length
    const body = notification(
      sesEvent(dee, 'Delivery', {
        delivery: { timestamp: '2026-11-28T10:00:02.000Z', recipients: [dee.to], smtpResponse: '250 ok' },
      }),
    )
    expect((await post(`ses/${TOKEN}`, body)).status).toBe(200)
    expect((await s.call('GET', `/api/v1/messages/${dee.id}`)).status).toBe('delivered')
    expect(await deliveriesOf('email.delivered')).toBe(delivered + 1)
    await post(`ses/${TOKEN}`, body)
    expect(await eventsOf(dee.id, 'email.delivered')).toHaveLength(events + 1)
    expect(await deliveriesOf('email.delivered')).toBe(delivered + 1)
  })

  test('a tampered message, an unknown signature version or a certificate off the SNS hosts → 401, nothing changes', async () => {
    const eve = m('eve@example.com')
    const event = sesEvent(eve, 'Bounce', { bounce: { bounceType: 'Permanent', bouncedRecipients: [] } })
    const before = await snapshot()
    const tampered = JSON.parse(notification(event))
    tampered.Message = tampered.Message.replace('Permanent', 'Transient')
    expect((await post(`ses/${TOKEN}`, JSON.stringify(tampered))).status).toBe(401)
    const v3 = { ...JSON.parse(notification(event)), SignatureVersion: '3' }
    expect((await post(`ses/${TOKEN}`, JSON.stringify(v3))).status).toBe(401)
    const elsewhere = notification(event, '1', `https://evil.example.com${CERT_PATH}`)
    expect((await post(`ses/${TOKEN}`, elsewhere)).status).toBe(401)
    const plainHttp = notification(event, '1', CERT_URL.replace('https:', 'http:'))
    expect((await post(`ses/${TOKEN}`, plainHttp)).status).toBe(401)
    expect(await snapshot()).toEqual(before)
    // The certificate was fetched once and kept.
    expect(certFetches).toBe(1)
  })
})

// --- Postmark -----------------------------------------------------------------------------------

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
})
const PM_ID = '883953f4-6105-42a2-a16a-77a8eac79483'

describe('Postmark', () => {
  const fay = m('fay@example.com')
  const bounce = JSON.stringify({
    RecordType: 'Bounce',
    MessageStream: 'outbound',
    ID: 4323372036,
    Type: 'HardBounce',
    TypeCode: 1,
    Name: 'Hard bounce',
    Tag: 'Test',
    MessageID: PM_ID,
    Metadata: {},
    ServerID: 23,
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
    Email: fay.to,
    From: 'news@acme.example',
    BouncedAt: '2026-11-28T10:00:54.9070259Z',
    DumpAvailable: true,
    Inactive: true,
    CanActivate: true,
    Subject: 'Hello',
  })

  test('without or with wrong Basic credentials → 401, nothing changes', async () => {
    await markSent(fay.id, PM_ID)
    const before = await snapshot()
    expect((await post(`postmark/${TOKEN}`, bounce)).status).toBe(401)
    expect((await post(`postmark/${TOKEN}`, bounce, basic('herald', 'wrong'))).status).toBe(401)
    expect((await post(`postmark/${TOKEN}`, bounce, basic('other', 'other-secret'))).status).toBe(401)
    expect(await snapshot()).toEqual(before)
  })

  test('a HardBounce matched by its MessageID → hard bounce and suppression; a repeat counts once', async () => {
    const r = await post(`postmark/${TOKEN}`, bounce, basic('herald', 'pm-secret'))
    expect(r.status).toBe(200)
    expect(await contactStatus(fay.to)).toBe('bounced')
    expect(await suppression(fay.to)).toBe('hard_bounce')
    const before = await snapshot()
    await post(`postmark/${TOKEN}`, bounce, basic('herald', 'pm-secret'))
    expect(await snapshot()).toEqual(before)
  })

  test('SpamComplaint and Delivery records', async () => {
    const gus = m('gus@example.com')
    await markSent(gus.id, 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817')
    const delivery = {
      RecordType: 'Delivery',
      ServerID: 23,
      MessageStream: 'outbound',
      MessageID: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817',
      Recipient: gus.to,
      Tag: 'welcome-email',
      DeliveredAt: '2026-11-28T10:01:00Z',
      Details: 'Test delivery webhook details',
      Metadata: {},
    }
    await post(`postmark/${TOKEN}`, JSON.stringify(delivery), basic('herald', 'pm-secret'))
    expect((await s.call('GET', `/api/v1/messages/${gus.id}`)).status).toBe('delivered')
    const complaint = {
      RecordType: 'SpamComplaint',
      MessageStream: 'outbound',
      ID: 42,
      Type: 'SpamComplaint',
      TypeCode: 512,
      Name: 'Spam complaint',
      MessageID: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817',
      ServerID: 23,
      Description: 'The subscriber explicitly marked this message as spam.',
      Email: gus.to,
      BouncedAt: '2026-11-28T10:02:00Z',
    }
    await post(`postmark/${TOKEN}`, JSON.stringify(complaint), basic('herald', 'pm-secret'))
    expect(await suppression(gus.to)).toBe('complaint')
  })
})

// --- Mailgun ------------------------------------------------------------------------------------

function mailgunBody(eventData: object, o: { key?: string; ageSeconds?: number } = {}) {
  const timestamp = String(Math.floor(Date.now() / 1000) - (o.ageSeconds ?? 0))
  const token = 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0'
  const signature = createHmac('sha256', o.key ?? MAILGUN_KEY)
    .update(timestamp + token)
    .digest('hex')
  return JSON.stringify({ signature: { timestamp, token, signature }, 'event-data': eventData })
}
const mailgunFailed = (out: EmailOut, severity: 'permanent' | 'temporary') => ({
  event: 'failed',
  id: 'G9Bn5sl1TC6nu79C8C0bwg',
  timestamp: Date.now() / 1000,
  'log-level': 'error',
  severity,
  reason: severity === 'permanent' ? 'bounce' : 'generic',
  recipient: out.to,
  message: {
    // Mailgun shows the Message-ID without angle brackets.
    headers: {
      to: out.to,
      'message-id': out.messageId.replace(/^<|>$/g, ''),
      from: 'news@acme.example',
      subject: 'Hello',
    },
    attachments: [],
    size: 111,
  },
  'delivery-status': {
    code: severity === 'permanent' ? 550 : 452,
    'enhanced-code': severity === 'permanent' ? '5.1.1' : '4.2.2',
    message: severity === 'permanent' ? '5.1.1 The email account does not exist' : 'mailbox full',
    description: '',
    'attempt-no': 1,
    'session-seconds': 0.4,
  },
})

describe('Mailgun', () => {
  test('a bad signature, a stale timestamp or another key → 401, nothing changes', async () => {
    const hal = m('hal@example.com')
    const before = await snapshot()
    const forged = JSON.parse(mailgunBody(mailgunFailed(hal, 'permanent')))
    forged.signature.signature = forged.signature.signature.replace(/^./, (c: string) =>
      c === '0' ? '1' : '0',
    )
    expect((await post(`mailgun/${TOKEN}`, JSON.stringify(forged))).status).toBe(401)
    const stale = mailgunBody(mailgunFailed(hal, 'permanent'), { ageSeconds: 6 * 60 })
    expect((await post(`mailgun/${TOKEN}`, stale)).status).toBe(401)
    const otherKey = mailgunBody(mailgunFailed(hal, 'permanent'), { key: 'key-someone-else' })
    expect((await post(`mailgun/${TOKEN}`, otherKey)).status).toBe(401)
    expect(await snapshot()).toEqual(before)
  })

  test('failed (temporary) is soft, failed (permanent) hard and suppresses; a repeat counts once', async () => {
    const hal = m('hal@example.com')
    expect((await post(`mailgun/${TOKEN}`, mailgunBody(mailgunFailed(hal, 'temporary')))).status).toBe(200)
    expect(await suppression(hal.to)).toBeNull()
    const hard = mailgunBody(mailgunFailed(hal, 'permanent'))
    expect((await post(`mailgun/${TOKEN}`, hard)).status).toBe(200)
    expect(await suppression(hal.to)).toBe('hard_bounce')
    expect((await eventsOf(hal.id, 'email.bounced')).map((e) => e.bounce_type)).toEqual(['soft', 'hard'])
    const before = await snapshot()
    await post(`mailgun/${TOKEN}`, hard)
    expect(await snapshot()).toEqual(before)
  })

  test('complained → complaint', async () => {
    const ivy = m('ivy@example.com')
    const body = mailgunBody({
      event: 'complained',
      id: '-Agny091SquKnsrW2NEKUA',
      timestamp: Date.now() / 1000,
      recipient: ivy.to,
      message: { headers: { 'message-id': ivy.messageId.slice(1, -1) } },
    })
    expect((await post(`mailgun/${TOKEN}`, body)).status).toBe(200)
    expect(await contactStatus(ivy.to)).toBe('complained')
  })
})

// --- SendGrid -----------------------------------------------------------------------------------

function sendgridHeaders(body: string, key = sendgridKeys.privateKey) {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const signature = sign('sha256', Buffer.from(timestamp + body), key).toString('base64')
  return {
    'x-twilio-email-event-webhook-signature': signature,
    'x-twilio-email-event-webhook-timestamp': timestamp,
  }
}

describe('SendGrid', () => {
  const jo = m('jo@example.com')
  const events = JSON.stringify([
    {
      email: jo.to,
      timestamp: Math.floor(Date.now() / 1000),
      'smtp-id': jo.messageId,
      event: 'bounce',
      category: ['newsletter'],
      sg_event_id: 'ZGVsaXZlcmVkLTAtMjQ5OTY5NzctMWRhM2M4',
      sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
      reason: '550 5.1.1 The email account that you tried to reach does not exist.',
      status: '5.1.1',
      type: 'bounce',
    },
    {
      email: 'stranger@example.com',
      timestamp: Math.floor(Date.now() / 1000),
      'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
      event: 'delivered',
      sg_event_id: 'ZGVsaXZlcmVkLTEtMjQ5OTY5NzctMWRhM2M4',
      sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.1',
      response: '250 OK',
    },
  ])

  test('a body signed with another key, or changed after signing → 401, nothing changes', async () => {
    const before = await snapshot()
    const otherKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    expect(
      (await post(`sendgrid/${TOKEN}`, events, sendgridHeaders(events, otherKeys.privateKey))).status,
    ).toBe(401)
    const headers = sendgridHeaders(events)
    expect((await post(`sendgrid/${TOKEN}`, events.replace('5.1.1', '4.1.1'), headers)).status).toBe(401)
    expect((await post(`sendgrid/${TOKEN}`, events)).status).toBe(401)
    expect(await snapshot()).toEqual(before)
  })

  test('a signed batch: the bounce matched by smtp-id is recorded, the unknown message acknowledged', async () => {
    const r = await post(`sendgrid/${TOKEN}`, events, sendgridHeaders(events))
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ recorded: 1, ignored: 1 })
    expect(await suppression(jo.to)).toBe('hard_bounce')
    const before = await snapshot()
    await post(`sendgrid/${TOKEN}`, events, sendgridHeaders(events))
    expect(await snapshot()).toEqual(before)
  })
})

// --- Every provider -----------------------------------------------------------------------------

describe('the feedback door', () => {
  test('an unknown token → 401 on every provider, through the app itself', async () => {
    for (const p of ['ses', 'postmark', 'mailgun', 'sendgrid']) {
      const r = await t.app.handle(
        new Request(`${BASE}/hooks/${p}/not-a-token`, {
          method: 'POST',
          body: '{}',
          headers: basic('herald', 'pm-secret'),
        }),
      )
      expect(r.status).toBe(401)
    }
    const r = await t.app.handle(
      new Request(`${BASE}/hooks/sparkpost/${TOKEN}`, { method: 'POST', body: '{}' }),
    )
    expect(r.status).toBe(404)
  })

  test("another client's token does not reach this client's messages", async () => {
    const eve = m('eve@example.com')
    await markSent(eve.id, 'pm-eve')
    const before = await snapshot()
    const body = JSON.stringify({
      RecordType: 'Bounce',
      Type: 'HardBounce',
      MessageID: 'pm-eve',
      Email: eve.to,
    })
    const r = await post(`postmark/${OTHER_TOKEN}`, body, basic('other', 'other-secret'))
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ recorded: 0, ignored: 1 })
    expect(await snapshot()).toEqual(before)
  })

  test('the access log names the route, never the token', () => {
    expect(loggedPath(`/hooks/ses/${TOKEN}`)).toBe('/hooks/ses/:token')
  })

  test('a body over 64 KiB → 413', async () => {
    const big = JSON.stringify({ RecordType: 'Delivery', Details: 'x'.repeat(70_000) })
    expect((await post(`postmark/${TOKEN}`, big, basic('herald', 'pm-secret'))).status).toBe(413)
  })

  test('GET /clients/{id}/sending says when each provider last posted', async () => {
    const fb = (await s.call('GET', `/api/v1/clients/${s.clientId}/sending`)).feedback
    for (const p of ['ses', 'postmark', 'mailgun', 'sendgrid'])
      expect(fb.last_received_at[p]).toMatch(/^\d{4}-\d\d-\d\dT/)
    const none = (await t.call('GET', `/api/v1/clients/${other}/sending`, { key: otherKey })).body.data
      .feedback
    expect(none.last_received_at).toEqual({
      ses: null,
      postmark: expect.any(String),
      mailgun: null,
      sendgrid: null,
    })
  })
})
