import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeLinkToken, trackingKey } from '../../src/lib/tracking-token'
import { BASE, createTestApp, type TestApp } from '../helpers/app'
import { serveBinary, useBinary } from '../helpers/binary'
import { storeEnv } from '../helpers/store-env'
import { browser, csrfOf, LOGIN_RATE_ENV, OWNER_PASSWORD } from '../http/admin/portal-helpers'

// Unauthenticated doors and their request bodies; the sign-in lockout and per-IP buckets.
// Bodies are streams that count what was pulled from them, so "refused before reading" is
// measured, not assumed.

const KIB = 1024
const FORM = 'application/x-www-form-urlencoded'

/** A body of `total` bytes in 16 KiB chunks; `pulled()` says how much the server took. */
function countingBody(total: number) {
  let pulled = 0
  const chunk = new Uint8Array(16 * KIB).fill(0x61) // 'a'
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled >= total) return c.close()
      pulled += chunk.byteLength
      c.enqueue(chunk)
    },
  })
  return { stream, pulled: () => pulled }
}

interface Door {
  path: string
  type: string
  /** What the door answers an error in: the REST body, RFC 6749's, or an HTML page. */
  shape: 'rest' | 'oauth' | 'html'
  headers?: Record<string, string>
}

const DOORS: Door[] = [
  { path: '/oauth2/token', type: FORM, shape: 'oauth' },
  { path: '/oauth2/revoke', type: FORM, shape: 'oauth' },
  { path: '/oauth2/register', type: 'application/json', shape: 'oauth' },
  { path: '/oauth2/authorize?response_type=code&client_id=x', type: FORM, shape: 'html' },
  { path: '/admin/login', type: FORM, shape: 'html' },
  { path: '/agent/auth/register', type: 'application/json', shape: 'rest' },
  { path: '/agent/auth/claim', type: 'application/json', shape: 'rest' },
  { path: '/agent/auth/revoke', type: 'application/json', shape: 'rest' },
  {
    path: '/api/v1/inbound/twilio/status',
    type: FORM,
    shape: 'rest',
    headers: { 'x-twilio-signature': 'x' },
  },
]

const t = await createTestApp({
  overHttp: true,
  env: {
    HERALD_SMS_PROVIDER: 'twilio',
    HERALD_TWILIO_BASE_URL: 'http://127.0.0.1:9',
    HERALD_TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
    HERALD_TWILIO_AUTH_TOKEN: 'twilio-test-auth-token',
    HERALD_TWILIO_FROM: '+14155550100',
  },
})

let nextIp = 0
/** A fresh client address per request series, so buckets of one row do not touch another's. */
const freshIp = () => `203.0.113.${++nextIp}`

async function send(door: Door, ip: string, total: number, declared: boolean) {
  const body = countingBody(total)
  const headers: Record<string, string> = {
    'content-type': door.type,
    'x-forwarded-for': ip,
    ...door.headers,
  }
  if (declared) headers['content-length'] = String(total)
  const response = await t.app.handle(
    new Request(BASE + door.path, {
      method: 'POST',
      headers,
      body: body.stream,
      duplex: 'half',
    } as RequestInit),
  )
  return { response, pulled: body.pulled() }
}

async function expectTooLarge(door: Door, response: Response) {
  expect(response.status).toBe(413)
  if (door.shape === 'html') {
    expect(response.headers.get('content-type')).toContain('text/html')
    return
  }
  const json = await response.json()
  if (door.shape === 'oauth') {
    expect(json.error).toBe('invalid_request')
    expect(json.error_description).toContain('65536')
  } else expect(json.error.code).toBe('PAYLOAD_TOO_LARGE')
}

describe('3. unauthenticated doors refuse large bodies before reading them', () => {
  for (const door of DOORS) {
    test(`3. ${door.path}: a Content-Length over 64 KiB is 413 and the body is not read`, async () => {
      const { response, pulled } = await send(door, freshIp(), 512 * KIB, true)
      await expectTooLarge(door, response)
      // Bun may take a chunk or two ahead of the reader; never the body.
      expect(pulled).toBeLessThanOrEqual(64 * KIB)
    })

    test(`3. ${door.path}: a chunked body over 64 KiB is cut at the limit with 413`, async () => {
      const { response, pulled } = await send(door, freshIp(), 2048 * KIB, false)
      await expectTooLarge(door, response)
      expect(pulled).toBeLessThanOrEqual(128 * KIB)
    })
  }

  for (const door of DOORS.filter((d) => !d.path.startsWith('/api/v1/inbound'))) {
    test(`3. ${door.path}: the per-IP token is taken before the body is read (the 21st oversized request is 429)`, async () => {
      const ip = freshIp()
      for (let i = 0; i < 20; i++) expect((await send(door, ip, 256 * KIB, true)).response.status).toBe(413)
      const { response, pulled } = await send(door, ip, 2048 * KIB, true)
      expect(response.status).toBe(429)
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(pulled).toBeLessThanOrEqual(64 * KIB)
    })
  }

  test('3. POST /u/{token}: a body over 4 KiB is 413, unread, and unsubscribes no one', async () => {
    const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
    const data = async (path: string, body: unknown) => (await t.call('POST', path, { key, body })).body.data
    const contact = await data('/api/v1/contacts', { email: 'una@example.com' })
    const template = await data('/api/v1/templates', { name: 'T', subject: 'S', body_html: '<p>x</p>' })
    const message = await data('/api/v1/messages', { contact_id: contact.id, template_id: template.id })
    const token = encodeLinkToken(trackingKey(t.ctx.secretKey), t.defaultClientId, 'unsubscribe', message.id)
    const door: Door = { path: `/u/${token}`, type: FORM, shape: 'rest' }
    for (const declared of [true, false]) {
      const { response, pulled } = await send(door, freshIp(), 512 * KIB, declared)
      expect(response.status).toBe(413)
      expect((await response.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
      expect(pulled).toBeLessThanOrEqual(64 * KIB)
    }
    const after = await t.call('GET', `/api/v1/contacts/${contact.id}`, { key })
    expect(after.body.data.status).toBe('subscribed')
  })

  test('3. a body within 64 KiB still reaches the door (token endpoint)', async () => {
    const small = await t.app.handle(
      new Request(`${BASE}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': FORM, 'x-forwarded-for': freshIp() },
        body: `grant_type=client_credentials&client_id=x&pad=${'a'.repeat(60 * KIB)}`,
      }),
    )
    expect(small.status).toBe(401)
    expect((await small.json()).error).toBe('invalid_client')
  })
})

// --- point 11: the sign-in lockout and per-IP buckets ------------------------------------------

const clock = { t: Date.UTC(2026, 0, 5, 9), now: () => clock.t }
const portal = await createTestApp({
  overHttp: true,
  clock,
  env: { HERALD_ADMIN_PASSWORD: OWNER_PASSWORD, ...LOGIN_RATE_ENV },
})
const OWNER = 'admin@localhost'
const MINUTE = 60_000

async function loginFrom(app: TestApp, email: string, password: string, ip: string) {
  const b = browser(app)
  const form = await b.get('/admin/login')
  b.csrf = csrfOf(form.text)
  const r = await b.post('/admin/login', { email, password }, { 'x-forwarded-for': ip })
  return { status: r.status, locked: r.text.includes('Too many failed sign-ins') }
}

describe('11. the sign-in lockout cannot be turned against the owner', () => {
  test('11. an attacker IP failing for owner@ locks only itself: the owner signs in from another IP', async () => {
    clock.t += 60 * MINUTE
    for (let i = 0; i < 12; i++) await loginFrom(portal, OWNER, 'wrong-password-x', '198.51.100.66')
    // The attacker's own address is refused, even with the right password.
    expect(await loginFrom(portal, OWNER, OWNER_PASSWORD, '198.51.100.66')).toEqual({
      status: 200,
      locked: true,
    })
    expect((await loginFrom(portal, OWNER, OWNER_PASSWORD, '192.0.2.10')).status).toBe(303)
  }, 60_000)

  test('11. a few attacker IPs do not slow the owner; many IPs meet the per-email back-off', async () => {
    clock.t += 60 * MINUTE
    // Four addresses, nine failures each: more than one address can do before its own lock.
    for (let ip = 0; ip < 4; ip++)
      for (let i = 0; i < 9; i++) await loginFrom(portal, OWNER, 'wrong-password-x', `198.51.100.${100 + ip}`)
    expect((await loginFrom(portal, OWNER, OWNER_PASSWORD, '192.0.2.11')).status).toBe(303)
    // A distributed guess: enough addresses to cross the per-email threshold.
    for (let ip = 4; ip < 8; ip++)
      for (let i = 0; i < 9; i++) await loginFrom(portal, OWNER, 'wrong-password-x', `198.51.100.${100 + ip}`)
    // Each further guess, from any address, must wait its turn…
    const slowed = await loginFrom(portal, OWNER, 'wrong-password-x', '198.51.100.200')
    expect(slowed.locked).toBe(true)
    // …which is a short back-off, not the pair lock's fifteen minutes.
    clock.t += 2 * MINUTE
    expect((await loginFrom(portal, OWNER, OWNER_PASSWORD, '192.0.2.12')).status).toBe(303)
  }, 120_000)

  test('11. addresses in one IPv6 /64 share a sign-in lock; another /64 does not', async () => {
    clock.t += 60 * MINUTE
    // A spray (30 failures, any emails) from addresses that differ only below the /64.
    for (let i = 0; i < 30; i++)
      await loginFrom(
        portal,
        `spray${i}@example.com`,
        'wrong-password-x',
        `2001:db8:aa:1::${(i + 1).toString(16)}`,
      )
    const sameNet = await loginFrom(portal, OWNER, OWNER_PASSWORD, '2001:db8:aa:1:ffff::9')
    expect(sameNet.locked).toBe(true)
    expect((await loginFrom(portal, OWNER, OWNER_PASSWORD, '2001:db8:aa:2::1')).status).toBe(303)
  }, 60_000)
})

describe('11. per-IP buckets group IPv6 by /64', async () => {
  const buckets = await createTestApp({ overHttp: true, clock: { now: () => Date.UTC(2026, 0, 5, 9) } })
  const token = async (ip: string) =>
    (
      await buckets.app.handle(
        new Request(`${BASE}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': FORM, 'x-forwarded-for': ip },
          body: 'grant_type=client_credentials&client_id=x',
        }),
      )
    ).status

  test('11. two addresses in one /64 share a bucket, two in different /64s do not', async () => {
    for (let i = 0; i < 20; i++) expect(await token(`2001:db8:1:2::${(i + 1).toString(16)}`)).toBe(401)
    expect(await token('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(429)
    expect(await token('2001:db8:1:3::1')).toBe(401)
  })

  test('11. an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
    for (let i = 0; i < 20; i++) expect(await token('198.51.100.77')).toBe(401)
    expect(await token('::ffff:198.51.100.77')).toBe(429)
  })
})

// --- point 3 against the built binary ----------------------------------------------------------

const bin = useBinary('herald-sec-bodies-')
let server: Awaited<ReturnType<typeof serveBinary>>

beforeAll(async () => {
  const env = { ...process.env, ...(await storeEnv()), HERALD_LOG: 'json' } as Record<string, string>
  server = await serveBinary(bin, join(bin.work, 'data'), env, 'ignore')
}, 120_000)

afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** Health answered while `inFlight` runs: the slowest answer, in ms. */
async function healthWhile(inFlight: Promise<unknown>): Promise<number> {
  let done = false
  inFlight.finally(() => {
    done = true
  })
  let slowest = 0
  // At least five probes (the first while the upload starts), at most 200 however long it takes.
  for (let i = 0; i < 200 && (i < 5 || !done); i++) {
    const start = performance.now()
    expect((await fetch(`${server.base}/api/v1/health`)).status).toBe(200)
    slowest = Math.max(slowest, performance.now() - start)
    await Bun.sleep(10)
  }
  return slowest
}

describe('3. the built binary under a 200 MB body', () => {
  const TOTAL = 200 * 1024 * KIB
  for (const path of ['/oauth2/token', '/admin/login']) {
    test(`3. ${path}: a 200 MB chunked POST is cut with 413; health stays fast and memory flat`, async () => {
      const before = rssMb(server.proc.pid)
      let sent = 0
      const chunk = new Uint8Array(1024 * KIB).fill(0x61)
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= TOTAL) return c.close()
          sent += chunk.byteLength
          c.enqueue(chunk)
        },
      })
      const upload = fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body,
        duplex: 'half',
      } as RequestInit).then(
        (r) => r.status,
        () => 'reset',
      )
      const slowest = await healthWhile(upload)
      const status = await upload
      expect(status).toBe(413)
      expect(slowest).toBeLessThan(100)
      // The server stopped taking the body: the client could not push it all.
      expect(sent).toBeLessThan(TOTAL)
      expect(rssMb(server.proc.pid) - before).toBeLessThan(50)
    }, 60_000)

    test(`3. ${path}: a declared 200 MB Content-Length is 413 at once and the connection closed`, async () => {
      const before = rssMb(server.proc.pid)
      const start = performance.now()
      const answer = await new Promise<string>((resolve, reject) => {
        let text = ''
        Bun.connect({
          hostname: '127.0.0.1',
          port: server.port,
          socket: {
            open(s) {
              s.write(
                `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${FORM}\r\ncontent-length: ${TOTAL}\r\n\r\n`,
              )
              s.write('a'.repeat(64 * KIB))
            },
            data(_s, d) {
              text += d.toString()
            },
            close: () => resolve(text),
            error: (_s, e) => reject(e),
          },
        }).then((s) => setTimeout(() => s.end(), 5000))
      })
      expect(answer).toStartWith('HTTP/1.1 413')
      // Closed by the server, not by our 5 s bound: it does not wait for the rest of the body.
      expect(performance.now() - start).toBeLessThan(1000)
      expect(rssMb(server.proc.pid) - before).toBeLessThan(50)
    }, 30_000)
  }
})
