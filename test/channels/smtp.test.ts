import { afterAll, describe, expect, test } from 'bun:test'
import { simpleParser } from 'mailparser'
import {
  createSmtpProvider,
  queueId,
  type SmtpProviderOptions,
  toProviderError,
} from '../../src/channels/smtp'
import { type ChannelProvider, type OutgoingEmail, ProviderError } from '../../src/channels/types'
import { publishedDkimKey } from '../helpers/dkim'
import { type Sink, selfSignedCert, startSink as startSmtpSink } from '../helpers/smtp-sink'

// The smtp provider against a real smtp-server listener: STARTTLS (checked against the test's
// own CA), implicit TLS, plain; the MIME read back with mailparser, the DKIM signature checked
// by mailauth against the key published in a local DNS server, and SMTP replies mapped to errors.

const { dkim, verify } = await publishedDkimKey('news.example', 'herald202611')
const cert = selfSignedCert()

const providers: ChannelProvider[] = []
const sinks: Sink[] = []
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()))
  await Promise.all(sinks.map((s) => s.close()))
})
async function startSink(options: Parameters<typeof startSmtpSink>[0] = {}) {
  const sink = await startSmtpSink(options)
  sinks.push(sink)
  return sink
}
function provider(options: SmtpProviderOptions) {
  const p = createSmtpProvider({ connectionTimeout: 5000, socketTimeout: 5000, ...options })
  providers.push(p)
  return p
}

const message = (over: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  channel: 'email',
  id: '0193a1b2-c3d4-7000-8000-000000000001',
  clientId: '0193a1b2-c3d4-7000-8000-0000000000c1',
  messageId: '<0193a1b2-c3d4-7000-8000-000000000001@news.example>',
  from: { email: 'offers@news.example', name: 'Acme News' },
  replyTo: 'support@news.example',
  to: 'ann@customer.example',
  envelopeFrom: 'bounce+tok123@mail.news.example',
  subject: 'Spring offers for you',
  html: '<p>Hello Ann, <a href="https://news.example/offer">see the offers</a></p>',
  text: 'Hello Ann, see the offers: https://news.example/offer',
  headers: {
    'List-Unsubscribe': '<https://herald.example/u/tok123>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  dkim,
  ...over,
})

describe('smtp provider', () => {
  test.skipIf(cert === null)(
    'STARTTLS + AUTH: the message arrives as built, DKIM-signed over List-Unsubscribe(-Post)',
    async () => {
      const sink = await startSink({ key: cert!.key, cert: cert!.cert })
      const smtp = provider({
        url: `smtp://herald:s3cret@127.0.0.1:${sink.port}`,
        pool: 2,
        tls: { ca: cert!.cert },
      })
      const result = await smtp.send(message())
      expect(result).toEqual({ providerMessageId: 'QID42', delivered: true })

      const [got] = sink.received
      expect(got).toMatchObject({
        mailFrom: 'bounce+tok123@mail.news.example',
        rcptTo: ['ann@customer.example'],
        secure: true,
        user: 'herald',
      })
      const mail = await simpleParser(got!.raw)
      expect(mail.messageId).toBe('<0193a1b2-c3d4-7000-8000-000000000001@news.example>')
      expect(mail.from?.value).toEqual([{ name: 'Acme News', address: 'offers@news.example' }])
      expect(mail.replyTo?.value).toEqual([{ name: '', address: 'support@news.example' }])
      expect(mail.to).toMatchObject({ value: [{ address: 'ann@customer.example' }] })
      expect(mail.subject).toBe('Spring offers for you')
      const line = (name: string) => mail.headerLines.find((h) => h.key === name)?.line
      expect(line('list-unsubscribe')).toBe('List-Unsubscribe: <https://herald.example/u/tok123>')
      expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
      expect(mail.html).toBe('<p>Hello Ann, <a href="https://news.example/offer">see the offers</a></p>')
      expect(mail.text?.trim()).toBe('Hello Ann, see the offers: https://news.example/offer')

      const result2 = await verify(got!.raw)
      expect(result2.results).toHaveLength(1)
      const r = result2.results[0]!
      expect(r.status.result).toBe('pass')
      expect(r.signingDomain).toBe('news.example')
      expect(r.selector).toBe('herald202611')
      const signed = r
        .signingHeaders!.keys.toLowerCase()
        .split(':')
        .map((h: string) => h.trim())
      expect(signed).toEqual(
        expect.arrayContaining([
          'from',
          'to',
          'subject',
          'message-id',
          'list-unsubscribe',
          'list-unsubscribe-post',
        ]),
      )
    },
  )

  test.skipIf(cert === null)('smtps:// speaks TLS from the first byte', async () => {
    const sink = await startSink({ secure: true, key: cert!.key, cert: cert!.cert })
    const smtp = provider({
      url: `smtps://127.0.0.1:${sink.port}`,
      pool: 1,
      tls: { rejectUnauthorized: false },
    })
    await smtp.send(message())
    expect(sink.received[0]?.secure).toBe(true)
    expect((await verify(sink.received[0]!.raw)).results[0]?.status.result).toBe('pass')
  })

  test('plain SMTP, unsigned: no DKIM-Signature; non-ASCII names and subjects survive', async () => {
    const sink = await startSink({ disabledCommands: ['STARTTLS'] })
    const smtp = provider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 1 })
    await smtp.send(
      message({
        dkim: null,
        from: { email: 'offers@news.example', name: 'Zoë’s Café, Ltd.' },
        replyTo: null,
        subject: 'Ünïcode offers — 50 % off',
        text: null,
        html: '<p>Größe: XL</p>',
      }),
    )
    const got = sink.received[0]!
    expect(got.secure).toBe(false)
    expect(got.raw.toString()).not.toContain('DKIM-Signature')
    const mail = await simpleParser(got.raw)
    expect(mail.from?.value).toEqual([{ name: 'Zoë’s Café, Ltd.', address: 'offers@news.example' }])
    expect(mail.subject).toBe('Ünïcode offers — 50 % off')
    expect(mail.replyTo).toBeUndefined()
    expect((mail.html as string).trim()).toBe('<p>Größe: XL</p>')
  })

  test('a 4xx reply is a retryable ProviderError with its code; a 5xx is permanent', async () => {
    const sink = await startSink({ disabledCommands: ['STARTTLS'] })
    sink.refuse.set('later@customer.example', 451)
    sink.refuse.set('nobody@customer.example', 550)
    const smtp = provider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 1 })

    const soft = await smtp.send(message({ to: 'later@customer.example' })).catch((e) => e)
    expect(soft).toBeInstanceOf(ProviderError)
    expect(soft).toMatchObject({ retryable: true, code: 451 })

    const hard = await smtp.send(message({ to: 'nobody@customer.example' })).catch((e) => e)
    expect(hard).toBeInstanceOf(ProviderError)
    expect(hard).toMatchObject({ retryable: false, code: 550 })
    expect(hard.message).toContain('No such user here')

    // the pool carries on after refusals
    expect((await smtp.send(message())).delivered).toBe(true)
  })

  test('a connection is replaced after maxMessages; one the server closed while idle is not used again', async () => {
    // The server ends connections idle for 200 ms (smtp-server's socketTimeout).
    const sink = await startSink({ disabledCommands: ['STARTTLS'], socketTimeout: 200 })
    const smtp = provider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 1, maxMessages: 2 })
    for (let i = 0; i < 5; i++) await smtp.send(message({ to: `r${i}@customer.example` }))
    const sessions = sink.received.map((m) => m.session)
    expect(new Set(sessions).size).toBe(3)
    expect(sessions[0]).toBe(sessions[1])
    expect(sessions[2]).toBe(sessions[3])
    // The fifth message's connection is closed by the server once idle.
    while (!sink.closed.has(sessions[4]!)) await Bun.sleep(5)
    expect((await smtp.send(message({ to: 'late@customer.example' }))).delivered).toBe(true)
    expect(sink.received.at(-1)!.session).not.toBe(sessions[4])
  })

  test('a refused connection is retryable', async () => {
    const sink = await startSmtpSink()
    const port = sink.port
    await sink.close()
    const smtp = provider({ url: `smtp://127.0.0.1:${port}`, pool: 1 })
    const err = await smtp.send(message()).catch((e) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect(err.retryable).toBe(true)
  })

  test('a wrong password is retried (the operator fixes it), not the message failed', async () => {
    const sink = await startSink({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true })
    const smtp = provider({ url: `smtp://herald:wrong@127.0.0.1:${sink.port}`, pool: 1 })
    const err = await smtp.send(message()).catch((e) => e)
    expect(err).toMatchObject({ retryable: true, code: 535 })
  })

  test('other channels are refused for good', async () => {
    const smtp = provider({ url: 'smtp://127.0.0.1:1', pool: 1 })
    const err = await smtp
      .send({
        channel: 'sms',
        id: 'x',
        clientId: 'c',
        messageId: '<x@y>',
        to: '+15550100',
        from: null,
        body: 'hi',
        statusCallbackUrl: 'http://127.0.0.1/cb',
      })
      .catch((e) => e)
    expect(err).toMatchObject({ retryable: false })
  })
})

describe('a server that stops answering', () => {
  test('past the socket timeout the send fails retryably, the connection is closed, the next message takes a fresh one', async () => {
    const sink = await startSink({ disabledCommands: ['STARTTLS'] })
    sink.stall.add('stall.example')
    const p = provider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 1, socketTimeout: 300 })
    const started = performance.now()
    const err = await p.send(message({ to: 'late@stall.example' })).catch((e) => e)
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(err).toBeInstanceOf(ProviderError)
    expect(err).toMatchObject({ retryable: true, code: 'ETIMEDOUT' })
    expect(sink.stalled).toHaveLength(1)
    await p.send(message({ to: 'ann@customer.example' }))
    expect(sink.received).toHaveLength(1)
    expect(sink.received[0]!.session).not.toBe(sink.stalled[0])
  })

  test("aborting the call's signal (the queue's deadline) closes the connection carrying it", async () => {
    const sink = await startSink({ disabledCommands: ['STARTTLS'] })
    sink.stall.add('stall.example')
    const p = provider({ url: `smtp://127.0.0.1:${sink.port}`, pool: 1, socketTimeout: 60_000 })
    const controller = new AbortController()
    const pending = p
      .send(message({ to: 'late@stall.example' }), { signal: controller.signal })
      .catch((e) => e)
    while (sink.stalled.length === 0) await Bun.sleep(5)
    controller.abort(new Error('deadline'))
    expect(await pending).toMatchObject({ retryable: true })
    await p.send(message({ to: 'ann@customer.example' }))
    expect(sink.received[0]!.session).not.toBe(sink.stalled[0])
    while (!sink.closed.has(sink.stalled[0]!)) await Bun.sleep(5)
  })
})

describe('smtp reply mapping', () => {
  test.each([
    ['451 at RCPT', { code: 'EENVELOPE', responseCode: 451 }, true, 451],
    ['421 closing', { code: 'EPROTOCOL', responseCode: 421 }, true, 421],
    ['503 out of sequence', { code: 'EPROTOCOL', responseCode: 503 }, true, 503],
    ['550 at RCPT', { code: 'EENVELOPE', responseCode: 550 }, false, 550],
    ['552 at DATA', { code: 'EMESSAGE', responseCode: 552 }, false, 552],
    ['timeout', { code: 'ETIMEDOUT' }, true, 'ETIMEDOUT'],
    ['connection dropped', { code: 'ECONNECTION' }, true, 'ECONNECTION'],
    ['TLS failure', { code: 'ETLS' }, true, 'ETLS'],
    ['bad envelope address, found locally', { code: 'EENVELOPE' }, false, 'EENVELOPE'],
  ] as const)('%s', (_name, fields, retryable, code) => {
    const err = toProviderError(Object.assign(new Error('boom'), fields))
    expect(err).toBeInstanceOf(ProviderError)
    expect(err).toMatchObject({ retryable, code })
  })

  test('the queue id of common MTAs is picked out of the 250 reply', () => {
    expect(queueId('250 2.0.0 Ok: queued as 4XyZ1b2C3d')).toBe('4XyZ1b2C3d')
    expect(queueId('250 OK id=1rAbCd-000123-Ef')).toBe('1rAbCd-000123-Ef')
    expect(queueId('250 2.0.0 OK 1700000000 x1si123 - gsmtp')).toBeNull()
    // Amazon SES: its notifications name the message by this id.
    expect(queueId('250 Ok 0100018c2f5e3a1b-3f2a1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d-000000')).toBe(
      '0100018c2f5e3a1b-3f2a1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d-000000',
    )
  })
})
