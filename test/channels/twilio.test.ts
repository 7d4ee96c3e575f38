import { afterAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { createTwilioProvider, parseTwilioStatus, verifyTwilioSignature } from '../../src/channels/twilio'
import { type OutgoingText, ProviderError } from '../../src/channels/types'

// The Twilio adapter against a local server speaking Twilio's REST shape, and the callback side
// (signature check, status mapping) against Twilio's documented example.

const SID = 'AC0123456789abcdef0123456789abcdef'
const TOKEN = 'tok_secret'
interface Hit {
  path: string
  auth: string | null
  form: Record<string, string>
}
const hits: Hit[] = []
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const form = Object.fromEntries(new URLSearchParams(await req.text()))
    const path = new URL(req.url).pathname
    hits.push({ path, auth: req.headers.get('authorization'), form })
    if (req.headers.get('authorization') !== `Basic ${btoa(`${SID}:${TOKEN}`)}`)
      return Response.json({ code: 20003, message: 'Authenticate', status: 401 }, { status: 401 })
    if (form.To === '+15550000400')
      return Response.json(
        { code: 21211, message: "The 'To' number +15550000400 is not a valid phone number.", status: 400 },
        { status: 400 },
      )
    if (form.To === '+15550000503') return new Response('upstream down', { status: 503 })
    if (form.To === '+15550000429')
      return Response.json({ code: 20429, message: 'Too Many Requests' }, { status: 429 })
    const kind = path.endsWith('/Calls.json') ? 'CA' : 'SM'
    return Response.json({ sid: `${kind}${'f'.repeat(32)}`, status: 'queued' }, { status: 201 })
  },
})
afterAll(() => server.stop(true))

const twilio = createTwilioProvider({
  baseUrl: `http://127.0.0.1:${server.port}/`,
  accountSid: SID,
  authToken: TOKEN,
  from: '+15550001111',
})
const text = (over: Partial<OutgoingText> = {}): OutgoingText => ({
  channel: 'sms',
  id: 'm1',
  clientId: 'c1',
  messageId: '<m1@herald>',
  to: '+15550002222',
  from: null,
  body: 'Your code is 1234 & more <soon>',
  statusCallbackUrl: 'https://herald.example/t/twilio/m1',
  ...over,
})

describe('twilio provider', () => {
  test('sms: Messages.json, Basic auth, form fields; SID back, delivery left to the callback', async () => {
    const result = await twilio.send(text())
    expect(result).toEqual({ providerMessageId: `SM${'f'.repeat(32)}`, delivered: false })
    const hit = hits.at(-1)!
    expect(hit.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`)
    expect(hit.form).toEqual({
      To: '+15550002222',
      From: '+15550001111',
      Body: 'Your code is 1234 & more <soon>',
      StatusCallback: 'https://herald.example/t/twilio/m1',
    })
  })

  test('whatsapp addresses both ends as whatsapp:+E164; a message sender beats the default', async () => {
    await twilio.send(text({ channel: 'whatsapp', from: '+15550003333' }))
    expect(hits.at(-1)!.form).toMatchObject({ To: 'whatsapp:+15550002222', From: 'whatsapp:+15550003333' })
  })

  test('rcs goes through the Messages API too', async () => {
    await twilio.send(text({ channel: 'rcs' }))
    expect(hits.at(-1)!.path).toEndWith('/Messages.json')
  })

  test('voice: Calls.json with TwiML <Say>, the text XML-escaped', async () => {
    const result = await twilio.send(text({ channel: 'voice' }))
    expect(result.providerMessageId).toStartWith('CA')
    const hit = hits.at(-1)!
    expect(hit.path).toBe(`/2010-04-01/Accounts/${SID}/Calls.json`)
    expect(hit.form).toEqual({
      To: '+15550002222',
      From: '+15550001111',
      Twiml: '<Response><Say>Your code is 1234 &amp; more &lt;soon&gt;</Say></Response>',
      StatusCallback: 'https://herald.example/t/twilio/m1',
    })
  })

  test('a 400 is permanent with Twilio’s code and message; 429 and 503 are retryable', async () => {
    const bad = await twilio.send(text({ to: '+15550000400' })).catch((e) => e)
    expect(bad).toBeInstanceOf(ProviderError)
    expect(bad).toMatchObject({ retryable: false, code: 21211 })
    expect(bad.message).toContain('is not a valid phone number')
    expect(await twilio.send(text({ to: '+15550000503' })).catch((e) => e)).toMatchObject({
      retryable: true,
      code: 503,
    })
    expect(await twilio.send(text({ to: '+15550000429' })).catch((e) => e)).toMatchObject({
      retryable: true,
      code: 20429,
    })
  })

  test('an unreachable service is retryable; a refused credential waits for the operator', async () => {
    const down = createTwilioProvider({
      baseUrl: 'http://127.0.0.1:1',
      accountSid: SID,
      authToken: TOKEN,
      from: '+1555',
    })
    expect(await down.send(text()).catch((e) => e)).toMatchObject({ retryable: true })
    const wrong = createTwilioProvider({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accountSid: SID,
      authToken: 'nope',
      from: '+15550001111',
    })
    expect(await wrong.send(text()).catch((e) => e)).toMatchObject({ retryable: true, code: 20003 })
  })

  test('no sender anywhere, or an email, is refused for good', async () => {
    const noFrom = createTwilioProvider({
      baseUrl: `http://127.0.0.1:${server.port}`,
      accountSid: SID,
      authToken: TOKEN,
    })
    expect(await noFrom.send(text()).catch((e) => e)).toMatchObject({ retryable: false })
    const email = { channel: 'email' } as unknown as OutgoingText
    expect(await twilio.send(email).catch((e) => e)).toMatchObject({ retryable: false })
  })
})

describe('twilio status callbacks', () => {
  // The worked example of Twilio's webhook security page (twilio.com/docs/usage/security).
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2'
  const params = {
    CallSid: 'CA1234567890ABCDE',
    Caller: '+14158675310',
    Digits: '1234',
    From: '+14158675310',
    To: '+18005551212',
  }

  test('the documented signature verifies; anything changed does not', () => {
    expect(verifyTwilioSignature('12345', url, params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(true)
    expect(
      verifyTwilioSignature('12345', url, { ...params, Digits: '9999' }, 'GvWf1cFY/Q7PnoempGyD5oXAezc='),
    ).toBe(false)
    expect(verifyTwilioSignature('54321', url, params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(false)
    expect(
      verifyTwilioSignature('12345', url.replace('https', 'http'), params, 'GvWf1cFY/Q7PnoempGyD5oXAezc='),
    ).toBe(false)
    expect(verifyTwilioSignature('12345', url, params, 'short')).toBe(false)
    expect(verifyTwilioSignature('12345', url, params, null)).toBe(false)
  })

  test('a URL seen with its default port still verifies (proxies)', () => {
    const withPort = 'https://mycompany.com:443/myapp.php?foo=1&bar=2'
    expect(verifyTwilioSignature('12345', withPort, params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(true)
    const signedWithPort = createHmac('sha1', '12345')
      .update(`${withPort}CallSidCA1234567890ABCDECaller+14158675310Digits1234From+14158675310To+18005551212`)
      .digest('base64')
    expect(verifyTwilioSignature('12345', url, params, signedWithPort)).toBe(true)
  })

  test.each([
    [{ MessageSid: 'SM1', MessageStatus: 'delivered' }, 'delivered'],
    [{ MessageSid: 'SM1', MessageStatus: 'read' }, 'delivered'],
    [{ MessageSid: 'SM1', MessageStatus: 'sent' }, 'sent'],
    [{ MessageSid: 'SM1', MessageStatus: 'queued' }, 'queued'],
    [{ MessageSid: 'SM1', MessageStatus: 'receiving' }, 'other'],
    [{ CallSid: 'CA1', CallStatus: 'completed' }, 'delivered'],
    [{ CallSid: 'CA1', CallStatus: 'ringing' }, 'sent'],
    [{ CallSid: 'CA1', CallStatus: 'busy' }, 'failed'],
    [{ CallSid: 'CA1', CallStatus: 'no-answer' }, 'failed'],
    [{ CallSid: 'CA1', CallStatus: 'canceled' }, 'failed'],
    [{ CallSid: 'CA1', CallStatus: 'failed' }, 'failed'],
  ] as [Record<string, string>, string][])('%o → %s', (params, status) => {
    expect(parseTwilioStatus(params).status).toBe(status as never)
  })

  test('an undelivered message carries Twilio’s error; a failed call says why', () => {
    expect(
      parseTwilioStatus({
        MessageSid: 'SM9',
        MessageStatus: 'undelivered',
        ErrorCode: '30003',
        ErrorMessage: 'Unreachable destination handset',
      }),
    ).toEqual({
      providerMessageId: 'SM9',
      status: 'failed',
      errorCode: '30003',
      errorMessage: 'Unreachable destination handset',
    })
    expect(parseTwilioStatus({ CallSid: 'CA9', CallStatus: 'no-answer' })).toEqual({
      providerMessageId: 'CA9',
      status: 'failed',
      errorCode: null,
      errorMessage: 'no-answer',
    })
  })
})
