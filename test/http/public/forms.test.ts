import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTestApp } from '../../helpers/app'
import { rowOf, runSql } from '../../helpers/raw-sql'
import { confirmPath, get, post, stateOf } from './form-helpers'

// The public doors of a signup form: the hosted page, the POST (JSON with CORS, or form-encoded
// with pages and redirects), bots and floods, addresses that must never be subscribed again, and
// the confirmation link. Every row checks what was stored, the consents and what was sent.

let now = Date.parse('2026-12-01T10:00:00.000Z')
const t = await createTestApp({ clock: { now: () => now } })
const acme = await t.client('Acme Bakery')
const key = await t.key({ scopes: ['lists:write', 'contacts:write', 'compliance:read'], clientId: acme })

const call = (method: string, path: string, body?: unknown) => t.call(method, path, { key, body })
const listA = (await call('POST', '/api/v1/lists', { name: 'News' })).body.data.id as string
const listB = (await call('POST', '/api/v1/lists', { name: 'Offers' })).body.data.id as string
const newForm = async (extra: Record<string, unknown> = {}) =>
  (
    await call('POST', '/api/v1/forms', {
      name: 'Signup',
      list_ids: [listA, listB],
      fields: ['first_name', 'custom.city'],
      consent_text: 'I agree to receive the bakery news.',
      ...extra,
    })
  ).body.data.id as string
const form = await newForm()

describe('the hosted page', () => {
  test('names the client, asks the fields, shows the consent, hides the honeypot, no script, under 30 KB', async () => {
    const page = await get(t, `/f/${form}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.text).toContain('<header>Acme Bakery</header>')
    for (const name of ['email', 'first_name', 'custom.city', 'hp'])
      expect(page.text).toContain(`name="${name}"`)
    expect(page.text).toContain('I agree to receive the bakery news.')
    expect(page.text).toMatch(/<div class="hp" aria-hidden="true">/)
    expect(page.text).not.toContain('<script')
    expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(30 * 1024)
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'")
  })

  test('a disabled, unknown or malformed form is 404', async () => {
    const off = await newForm({ status: 'disabled' })
    for (const path of [`/f/${off}`, `/f/${Bun.randomUUIDv7()}`, '/f/nope'])
      expect((await get(t, path)).status).toBe(404)
    expect((await post(t, off, { email: 'x@example.com' })).status).toBe(404)
  })
})

describe('submitting', () => {
  test('JSON: pending, CORS, contact created, unconfirmed on each list, consents, one confirmation', async () => {
    const res = await post(
      t,
      form,
      { email: 'Ann@Example.com', first_name: 'Ann', 'custom.city': 'Lyon' },
      { ip: '203.0.113.7' },
    )
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { status: 'pending' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    const s = await stateOf(t, acme, 'ann@example.com')
    expect(s.contact).toMatchObject({ status: 'subscribed', first_name: 'Ann' })
    expect(s.members.map((m) => m.status)).toEqual(['unconfirmed', 'unconfirmed'])
    expect(s.consents).toHaveLength(2)
    for (const c of s.consents)
      expect(c).toMatchObject({
        action: 'subscribed',
        source: 'form',
        form_id: form,
        ip: '203.0.113.7',
        user_agent: 'FormTest/1.0',
        consent_text: 'I agree to receive the bakery news.',
      })
    expect(s.messages).toHaveLength(1)
    expect(s.messages[0]!.subject).toBe('Please confirm your subscription')
    expect(JSON.parse(s.messages[0]!.variables!).confirm_url).toMatch(
      /^http:\/\/localhost:8080\/f\/confirm\//,
    )
  })

  test('the same address again within the hour: same answer, no second message; after it, one more', async () => {
    await post(t, form, { email: 'again@example.com' })
    const again = await post(t, form, { email: 'AGAIN@example.com' })
    expect(again.body).toEqual({ data: { status: 'pending' } })
    expect((await stateOf(t, acme, 'again@example.com')).messages).toHaveLength(1)
    now += 60 * 60 * 1000
    await post(t, form, { email: 'again@example.com' }, { ip: '198.51.100.1' })
    expect((await stateOf(t, acme, 'again@example.com')).messages).toHaveLength(2)
  })

  test('form-encoded: 303 to the thank-you page, or to success_url', async () => {
    const res = await post(t, form, { email: 'bob@example.com' }, { json: false })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/f/${form}/thanks`)
    const thanks = await get(t, `/f/${form}/thanks`)
    expect(thanks.status).toBe(200)
    expect(thanks.text).toContain('Check your inbox')
    const elsewhere = await newForm({ success_url: 'https://bakery.example/thanks' })
    const redirected = await post(t, elsewhere, { email: 'carl@example.com' }, { json: false })
    expect(redirected.status).toBe(303)
    expect(redirected.headers.get('location')).toBe('https://bakery.example/thanks')
    expect((await get(t, `/f/${elsewhere}`)).headers.get('content-security-policy')).toContain(
      "form-action 'self' https://bakery.example",
    )
  })

  test('single opt-in: subscribed at once, confirmed members, nothing sent', async () => {
    const single = await newForm({ double_opt_in: false })
    const res = await post(t, single, { email: 'dee@example.com' })
    expect(res.body).toEqual({ data: { status: 'subscribed' } })
    const s = await stateOf(t, acme, 'dee@example.com')
    expect(s.members.map((m) => m.status)).toEqual(['confirmed', 'confirmed'])
    expect(s.messages).toHaveLength(0)
  })

  test('a known subscribed contact: same answer, its fields untouched, asked to confirm', async () => {
    await call('POST', '/api/v1/contacts', { email: 'eve@example.com', first_name: 'Eve' })
    const res = await post(t, form, { email: 'eve@example.com', first_name: 'Mallory' })
    expect(res.body).toEqual({ data: { status: 'pending' } })
    const s = await stateOf(t, acme, 'eve@example.com')
    expect(s.contact!.first_name).toBe('Eve')
    expect(s.members.map((m) => m.status)).toEqual(['unconfirmed', 'unconfirmed'])
    expect(s.messages).toHaveLength(1)
  })

  const optedOut = ['unsubscribed', 'bounced', 'complained', 'blocked'] as const
  for (const status of optedOut)
    test(`a ${status} contact: same answer, nothing changed, nothing sent`, async () => {
      const email = `${status}@example.com`
      await call('POST', '/api/v1/contacts', { email })
      await runSql(t, sql`UPDATE contacts SET status = ${status} WHERE email = ${email}`)
      const before = await stateOf(t, acme, email)
      const res = await post(t, form, { email })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ data: { status: 'pending' } })
      expect(await stateOf(t, acme, email)).toEqual(before)
      expect(before.members).toHaveLength(0)
    })

  test('a suppressed address: same answer, no contact, nothing sent', async () => {
    expect((await call('POST', '/api/v1/suppressions', { email: 'gone@example.com' })).status).toBeLessThan(
      300,
    )
    const res = await post(t, form, { email: 'Gone@Example.com' })
    expect(res.body).toEqual({ data: { status: 'pending' } })
    expect((await stateOf(t, acme, 'gone@example.com')).contact).toBeUndefined()
  })

  test('the honeypot filled: same answer, nothing stored', async () => {
    const res = await post(t, form, { email: 'bot@example.com', hp: 'http://spam.example' })
    expect(res.body).toEqual({ data: { status: 'pending' } })
    const page = await post(t, form, { email: 'bot@example.com', hp: 'x' }, { json: false })
    expect(page.status).toBe(303)
    expect((await stateOf(t, acme, 'bot@example.com')).contact).toBeUndefined()
  })

  test('a bad or missing email: 422 as JSON (with CORS), or the page again with the message', async () => {
    const json = await post(t, form, { email: 'not-an-email' })
    expect(json.status).toBe(422)
    expect(json.body.error.code).toBe('VALIDATION_FAILED')
    expect(json.body.error.details[0].field).toBe('email')
    expect(json.headers.get('access-control-allow-origin')).toBe('*')
    expect((await post(t, form, {})).status).toBe(422)
    const page = await post(t, form, { email: 'nope', first_name: 'Zoë <b>' }, { json: false })
    expect(page.status).toBe(422)
    expect(page.text).toContain('role="alert"')
    expect(page.text).toContain('must be a valid email address')
    expect(page.text).toContain('value="Zoë &#60;b&#62;"')
    expect(page.text).not.toContain('<script')
  })

  test('control characters or an unpaired surrogate in a crafted POST: 422 naming the field, nothing stored', async () => {
    const contacts = async () =>
      (await rowOf<{ n: number }>(
        t,
        sql`SELECT CAST(count(*) AS INTEGER) AS n FROM contacts WHERE client_id = ${acme}`,
      ))!.n
    const before = await contacts()
    for (const [body, field] of [
      [{ email: 'a\u0000b@example.com' }, 'email'],
      [{ email: 'nul@example.com', first_name: 'A\u0000' }, 'first_name'],
      [{ email: 'nl@example.com', first_name: 'A\r\nBcc: x@y.io' }, 'first_name'],
      [{ email: 'city@example.com', 'custom.city': 'Par\u0000is' }, 'custom.city'],
      [{ email: 'sur@example.com', 'custom.city': 'x\ud800' }, 'custom.city'],
    ] as const) {
      const res = await post(t, form, body)
      const fields = res.body.error?.details?.map((d: { field: string }) => d.field)
      expect({ field, status: res.status, fields }).toEqual({ field, status: 422, fields: [field] })
    }
    const page = await post(t, form, { email: 'page@example.com', first_name: 'A\u0000' }, { json: false })
    expect(page.status).toBe(422)
    expect(page.text).toContain('must not contain control characters')
    expect(await contacts()).toBe(before)
  })

  test('a body over 64 KiB is 413; not JSON is 400', async () => {
    expect((await post(t, form, { email: 'big@example.com', first_name: 'x'.repeat(70_000) })).status).toBe(
      413,
    )
    const res = await t.app.handle(
      new Request(`http://localhost:8080/f/${form}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
    )
    expect(res.status).toBe(400)
  })

  test('the preflight answers CORS for any origin', async () => {
    const res = await t.app.handle(
      new Request(`http://localhost:8080/f/${form}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://bakery.example', 'access-control-request-method': 'POST' },
      }),
    )
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
  })

  test('10 submissions per IP per form a minute, then 429; other forms and IPs unaffected', async () => {
    const limited = await newForm()
    const other = await newForm()
    const ip = '192.0.2.55'
    for (let i = 0; i < 10; i++)
      expect((await post(t, limited, { email: `r${i}@example.com` }, { ip })).status).toBe(200)
    const refused = await post(t, limited, { email: 'r10@example.com' }, { ip })
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('RATE_LIMITED')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await stateOf(t, acme, 'r10@example.com')).contact).toBeUndefined()
    expect((await post(t, limited, { email: 'r10@example.com' }, { json: false, ip })).status).toBe(429)
    expect((await post(t, other, { email: 'r11@example.com' }, { ip })).status).toBe(200)
    expect((await post(t, limited, { email: 'r12@example.com' }, { ip: '192.0.2.56' })).status).toBe(200)
    now += 60_000
    expect((await post(t, limited, { email: 'r13@example.com' }, { ip })).status).toBe(200)
  })
})

describe('confirming', () => {
  test('the link confirms every list of the form once; a repeat changes nothing', async () => {
    await post(t, form, { email: 'fay@example.com' })
    const path = await confirmPath(t, acme, 'fay@example.com')
    const first = await get(t, path, '198.51.100.9')
    expect(first.status).toBe(200)
    expect(first.text).toContain('Subscription confirmed')
    expect(first.text).toContain('Acme Bakery')
    const s = await stateOf(t, acme, 'fay@example.com')
    expect(s.members.map((m) => m.status)).toEqual(['confirmed', 'confirmed'])
    const confirmed = s.consents.filter((c) => c.action === 'confirmed')
    expect(confirmed).toHaveLength(2)
    expect(confirmed[0]).toMatchObject({ source: 'form', form_id: form, ip: '198.51.100.9' })
    const counts = (await call('GET', `/api/v1/lists/${listA}`)).body.data.member_count
    const again = await get(t, path)
    expect(again.status).toBe(200)
    expect((await stateOf(t, acme, 'fay@example.com')).consents).toHaveLength(s.consents.length)
    expect((await call('GET', `/api/v1/lists/${listA}`)).body.data.member_count).toBe(counts)
  })

  test('confirmed_url: 303 there', async () => {
    const away = await newForm({ confirmed_url: 'https://bakery.example/welcome' })
    await post(t, away, { email: 'gus@example.com' })
    const res = await get(t, await confirmPath(t, acme, 'gus@example.com'))
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('https://bakery.example/welcome')
  })

  test('bad tokens and expired tokens are 404 and confirm nothing', async () => {
    await post(t, form, { email: 'hal@example.com' })
    const path = await confirmPath(t, acme, 'hal@example.com')
    const token = path.split('/').at(-1)!
    const [payload, sig] = token.split('.')
    const flipped = `${payload!.slice(0, -2)}${payload!.at(-2) === 'A' ? 'B' : 'A'}${payload!.slice(-1)}.${sig}`
    for (const bad of ['/f/confirm/nope', '/f/confirm/a.b', `/f/confirm/${flipped}`, `/f/confirm/${token}x`])
      expect((await get(t, bad)).status).toBe(404)
    now += 7 * 24 * 60 * 60 * 1000 + 1
    expect((await get(t, path)).status).toBe(404)
    expect((await stateOf(t, acme, 'hal@example.com')).members.map((m) => m.status)).toEqual([
      'unconfirmed',
      'unconfirmed',
    ])
  })

  test('someone who opted out since is not subscribed by an old link', async () => {
    await post(t, form, { email: 'ida@example.com' })
    const path = await confirmPath(t, acme, 'ida@example.com')
    await runSql(t, sql`UPDATE contacts SET status = 'unsubscribed' WHERE email = 'ida@example.com'`)
    expect((await get(t, path)).status).toBe(200)
    expect((await stateOf(t, acme, 'ida@example.com')).members.map((m) => m.status)).toEqual([
      'unconfirmed',
      'unconfirmed',
    ])
  })
})

describe('adding to a list with double opt-in through the API', () => {
  test('members are added unconfirmed and each is sent the confirmation; the link confirms that list', async () => {
    const ids = [
      (await call('POST', '/api/v1/contacts', { email: 'jo@example.com' })).body.data.id,
      (await call('POST', '/api/v1/contacts', { email: 'kim@example.com' })).body.data.id,
    ]
    const list = (await call('POST', '/api/v1/lists', { name: 'Double' })).body.data.id
    const res = await call('POST', `/api/v1/lists/${list}/contacts?double_opt_in=true`, { contact_ids: ids })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ added: 2, member_count: 0 })
    const jo = await stateOf(t, acme, 'jo@example.com')
    expect(jo.members).toEqual([{ list_id: list, status: 'unconfirmed' }])
    expect(jo.messages).toHaveLength(1)
    expect((await get(t, await confirmPath(t, acme, 'jo@example.com'))).status).toBe(200)
    expect((await stateOf(t, acme, 'jo@example.com')).members).toEqual([
      { list_id: list, status: 'confirmed' },
    ])
    expect((await stateOf(t, acme, 'jo@example.com')).consents.map((c) => [c.action, c.source])).toEqual([
      ['subscribed', 'api'],
      ['confirmed', 'api'],
    ])
    expect((await call('GET', `/api/v1/lists/${list}`)).body.data.member_count).toBe(1)
  })
})
