import { afterAll, describe, expect, spyOn, test } from 'bun:test'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { ConfigError, loadConfig } from '../../src/config'
import { webhooks } from '../../src/db/schema'
import { attemptDelivery, pinnedRequest } from '../../src/webhooks/attempt'
import { signatureFor, signedHeaders } from '../../src/webhooks/signing'
import {
  addressProblem,
  checkTarget,
  deliveryProblem,
  hostResolver,
  isPrivateAddress,
  urlProblem,
} from '../../src/webhooks/ssrf'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { type Scenario, scenarios } from '../helpers/scenarios'

describe('isPrivateAddress', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['10.20.30.40', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.215.14', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['fd00:ec2::254', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['not an ip', true],
    ['255.255.255.255', true],
    ['168.63.129.16', true],
    ['::7f00:1', true],
    ['::127.0.0.1', true],
    ['::ffff:0:7f00:1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['64:ff9b::808:808', false],
    ['2002:7f00:1::1', true],
    ['2002:808:808::1', false],
    ['2001:db8::1', true],
  ]
  for (const [address, expected] of cases)
    test(`${address} → ${expected ? 'private' : 'public'}`, () =>
      expect(isPrivateAddress(address)).toBe(expected))
})

describe('urlProblem and deliveryProblem', () => {
  test('allow-private permits http and loopback, still refuses other schemes', () => {
    expect(urlProblem('http://127.0.0.1:9/x', true)).toBeNull()
    expect(urlProblem('file:///etc/passwd', true)).toBe('must use https or http')
    expect(urlProblem('http://127.0.0.1:9/x', false)).toBe('must use https')
  })
  test('literal private addresses are refused before any look-up', async () => {
    expect(await deliveryProblem('https://10.0.0.1/', false)).toBe(
      'must be a public address (10.0.0.1 is a private address)',
    )
    expect(await deliveryProblem('https://[::1]/', false)).toBe(
      'must be a public address (::1 is a loopback address)',
    )
  })
  test('a name that does not resolve is refused at delivery time', async () => {
    expect(await deliveryProblem('https://no-such-host.invalid/', false)).toBe(
      'must resolve: no-such-host.invalid has no address',
    )
  })
})

describe('signing', () => {
  test('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks specification's examples.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const body = '{"test": 2432232314}'
    expect(signatureFor(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    )
    const h = signedHeaders([secret, secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330_000, body)
    expect(h['webhook-signature'].split(' ')).toHaveLength(2)
    expect(h['webhook-timestamp']).toBe('1614265330')
  })
})

describe('HERALD_WEBHOOK_RETRY_SCHEDULE', () => {
  test('durations with units, or the default', () => {
    expect(loadConfig({}, {}).webhookRetrySchedule).toBeNull()
    expect(loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,250,5s,5m,2h' }).webhookRetrySchedule).toEqual([
      0, 250, 5000, 300_000, 7_200_000,
    ])
  })
  test('a bad value names the setting', () => {
    expect(() => loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(ConfigError)
    expect(() => loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(
      /HERALD_WEBHOOK_RETRY_SCHEDULE/,
    )
  })
})

describe('addressProblem says why', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['10.0.0.5', 'a private address'],
    ['fd00::5', 'a private address'],
    ['169.254.10.1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['100.64.0.7', 'a carrier-grade NAT address'],
    ['239.1.2.3', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
  ]
  for (const [address, why] of cases)
    test(`${address}: ${why}`, () => expect(addressProblem(address)).toBe(why))
})

describe('host names are normalised before the check', () => {
  // The URL parser turns odd IPv4 forms into dotted quads; case and trailing dots are ours.
  const refused: [string, RegExp][] = [
    ['https://LOCALHOST./h', /local name/],
    ['https://localhost/h', /local name/],
    ['https://Foo.LocalHost/h', /local name/],
    ['https://printer.local./h', /local name/],
    ['https://0x7f.1/h', /127\.0\.0\.1 is a loopback address/],
    ['https://2130706433/h', /127\.0\.0\.1 is a loopback address/],
    ['https://127.1/h', /127\.0\.0\.1 is a loopback address/],
    ['https://017700000001/h', /127\.0\.0\.1 is a loopback address/],
    ['https://127.0.0.1./h', /127\.0\.0\.1 is a loopback address/],
    ['https://0xa9.0xfe.0xa9.0xfe/h', /cloud metadata address/],
    ['https://[::ffff:127.0.0.1]/h', /loopback/],
    ['https://[::1]/h', /loopback/],
    ['https://[::127.0.0.1]/h', /reserved/],
    ['https://[0:0:0:0:0:ffff:7f00:1]/h', /loopback/],
    ['https://[64:ff9b::a9fe:a9fe]/h', /cloud metadata address/],
    ['https://METADATA.google.internal./h', /cloud metadata host/],
    ['https://metadata.goog/h', /cloud metadata host/],
    ['https://intranet/h', /local name/],
  ]
  for (const [url, why] of refused) test(`${url} refused`, () => expect(urlProblem(url, false)).toMatch(why))
  test('a public name passes the shape check (its addresses are checked next)', () =>
    expect(urlProblem('https://Hooks.Example.COM./h', false)).toBeNull())
})

// ---------------------------------------------------------------------------------------------
// The scenario table: a DNS server started here answers the names; the instance looks them up
// through it (HERALD_DNS_SERVERS). Nothing here leaves loopback: public answers are never fetched
// (refused first, or fetch is stubbed where the pinned address is the point).

const PUBLIC = '93.184.215.14'
const PUBLIC6 = '2606:4700:4700::1111'
const dns = await startDnsServer()
const strict = await createTestApp({ env: { HERALD_DNS_SERVERS: dns.address } })
const strictClient = await strict.client('SSRF')
const strictKey = await strict.key({ scopes: ['contacts:write'], clientId: strictClient })

/** Answers of the names the tables use. */
const NAMES: Record<string, string[]> = {
  'public.herald-test.net': [PUBLIC, PUBLIC6],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  '169.254.169.254.nip.io': ['169.254.169.254'],
  '10.0.0.5.nip.io': ['10.0.0.5'],
  'cgnat.herald-test.net': ['100.64.0.7'],
  'link-local.herald-test.net': ['169.254.10.1'],
  'multicast.herald-test.net': ['239.1.2.3'],
  'unspecified.herald-test.net': ['0.0.0.0'],
  'v6-loopback.herald-test.net': ['::1'],
  'v6-mapped.herald-test.net': ['::ffff:7f00:1'],
  'v6-ula.herald-test.net': ['fd00::5'],
  'nat64-metadata.herald-test.net': ['64:ff9b::a9fe:a9fe'],
  'mixed.herald-test.net': [PUBLIC, '10.1.1.1'],
  'metadata.google.internal': [PUBLIC], // refused by name, never looked up
}
for (const [name, addresses] of Object.entries(NAMES)) dns.hosts.set(name, addresses)
dns.failing.add('broken.herald-test.net')

/** A loopback TCP listener that counts connections: nothing may reach it. */
async function startListener() {
  const l = { port: 0, connections: 0, close: () => {} }
  const server = createServer((socket) => {
    l.connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  l.port = (server.address() as { port: number }).port
  l.close = () => server.close()
  return l
}
const listener = await startListener()
afterAll(() => listener.close())

const url422 = (name: string, url: string, message: RegExp): Scenario => ({
  name,
  body: { url, events: ['email.opened'] },
  status: 422,
  field: 'url',
  message,
})

describe('at creation: the host is normalised and resolved, every address must be public', () => {
  scenarios(
    strict,
    { method: 'POST', path: '/api/v1/webhooks', key: () => strictKey },
    [
      url422('127.0.0.1.nip.io', 'https://127.0.0.1.nip.io/h', /127\.0\.0\.1, a loopback address/),
      url422('169.254.169.254.nip.io', 'https://169.254.169.254.nip.io/h', /cloud metadata address/),
      url422('private', 'https://10.0.0.5.nip.io/h', /10\.0\.0\.5, a private address/),
      url422('CGNAT', 'https://cgnat.herald-test.net/h', /carrier-grade NAT/),
      url422('link-local', 'https://link-local.herald-test.net/h', /link-local/),
      url422('multicast', 'https://multicast.herald-test.net/h', /multicast/),
      url422('unspecified', 'https://unspecified.herald-test.net/h', /0\.0\.0\.0, an unspecified address/),
      url422('AAAA ::1', 'https://v6-loopback.herald-test.net/h', /::1, a loopback address/),
      url422('AAAA IPv4-mapped loopback', 'https://v6-mapped.herald-test.net/h', /loopback/),
      url422('AAAA unique local', 'https://v6-ula.herald-test.net/h', /private/),
      url422('AAAA NAT64 of the metadata address', 'https://nat64-metadata.herald-test.net/h', /metadata/),
      url422('one public and one private address', 'https://mixed.herald-test.net/h', /10\.1\.1\.1/),
      url422('case and trailing dot', 'https://127.0.0.1.NIP.io./h', /loopback/),
      url422('metadata.google.internal', 'https://metadata.google.internal/h', /cloud metadata host/),
      url422('LOCALHOST.', 'https://LOCALHOST./h', /local name/),
      url422('0x7f.1', 'https://0x7f.1/h', /loopback/),
      url422('2130706433', 'https://2130706433/h', /loopback/),
      url422('127.1', 'https://127.1/h', /loopback/),
      url422('[::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/h', /loopback/),
      url422('[::1]', 'https://[::1]/h', /loopback/),
      // Accepted at creation (an instance without DNS must still register webhooks); the
      // delivery-time check refuses them while they do not resolve (below).
      {
        name: 'a name that does not resolve (yet)',
        body: { url: 'https://nowhere.herald-test.net/h', events: ['email.opened'] },
        status: 200,
      },
      {
        name: 'a name whose look-up fails',
        body: { url: 'https://broken.herald-test.net/h', events: ['email.opened'] },
        status: 200,
      },
      url422('http', 'http://public.herald-test.net/h', /must use https/),
      {
        name: 'a bad URL and bad events: both named',
        body: { url: 'https://127.0.0.1.nip.io/h', events: ['nope'] },
        status: 422,
        fields: ['url', 'events[0]'],
      },
      {
        name: 'a public name',
        body: { url: 'https://public.herald-test.net/h', events: ['email.opened'] },
        status: 200,
      },
      {
        name: 'a public name, upper case with a trailing dot',
        body: { url: 'https://PUBLIC.herald-test.net./h', events: ['email.opened'] },
        status: 200,
      },
    ],
    'create: ',
  )

  test('metadata names are refused without a look-up', () =>
    expect(dns.queries.filter((q) => q.endsWith(' metadata.google.internal'))).toEqual([]))

  test('PATCH checks the new URL the same way', async () => {
    const hook = await create('https://public.herald-test.net/h')
    const res = await strict.call('PATCH', `/api/v1/webhooks/${hook.id}`, {
      key: strictKey,
      body: { url: 'https://169.254.169.254.nip.io/h' },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.details[0]).toMatchObject({
      field: 'url',
      message: expect.stringMatching(/metadata/),
    })
  })
})

async function create(url: string) {
  const res = await strict.call('POST', '/api/v1/webhooks', {
    key: strictKey,
    body: { url, events: ['contact.unsubscribed'] },
  })
  expect(res.status).toBe(200)
  return res.body.data as { id: string }
}

/** One attempt through the test endpoint (the same send() as the worker's) and its log. */
async function attempt(hookId: string) {
  const res = await strict.call('POST', `/api/v1/webhooks/${hookId}/test`, {
    key: strictKey,
    body: { event: 'contact.unsubscribed' },
  })
  expect(res.status).toBe(200)
  const log = (await strict.call('GET', `/api/v1/webhooks/${hookId}/deliveries`, { key: strictKey })).body
    .data
  return { answer: res.body.data, log: log[0].attempt_log as { error: string | null }[] }
}

describe('at delivery: checked again, refused, logged, nothing reaches the loopback listener', () => {
  let n = 0
  // Created while the name answers public addresses (A and AAAA: with TTL 0, no answer is
  // cached); then it answers with these (DNS rebinding).
  const rebinding: [string, string[], RegExp][] = [
    ['127.0.0.1', ['127.0.0.1'], /127\.0\.0\.1, a loopback address/],
    ['::1', ['::1'], /::1, a loopback address/],
    ['::ffff:127.0.0.1', ['::ffff:7f00:1'], /loopback/],
    ['169.254.169.254', ['169.254.169.254'], /cloud metadata address/],
    ['10.0.0.5', ['10.0.0.5'], /private/],
    ['100.64.0.7', ['100.64.0.7'], /carrier-grade NAT/],
    ['0.0.0.0', ['0.0.0.0'], /unspecified/],
    ['a public and a loopback address', [PUBLIC, '127.0.0.1'], /127\.0\.0\.1/],
    ['no address any more', [], /has no address/],
  ]
  for (const [label, later, why] of rebinding)
    test(`the name now resolves to ${label}`, async () => {
      const name = `rebind-${++n}.herald-test.net`
      dns.hosts.set(name, [PUBLIC, PUBLIC6])
      const hook = await create(`https://${name}:${listener.port}/hook`)
      if (later.length) dns.hosts.set(name, later)
      else dns.hosts.delete(name)
      const warn = spyOn(strict.ctx.log, 'warn')
      const { answer, log } = await attempt(hook.id)
      expect(answer).toMatchObject({ delivered: false, status: null })
      expect(answer.error).toStartWith('refused: ')
      expect(answer.error).toMatch(why)
      expect(log[0]!.error).toBe(answer.error)
      expect(warn).toHaveBeenCalledWith('webhook target refused', {
        webhook_id: hook.id,
        reason: answer.error.slice('refused: '.length),
      })
      warn.mockRestore()
      expect(listener.connections).toBe(0)
    })

  // A stored URL (written before this check existed, or by hand) is judged the same way.
  const stored: [string, RegExp][] = [
    ['https://0x7f.1:PORT/hook', /loopback/],
    ['https://2130706433:PORT/hook', /loopback/],
    ['https://LOCALHOST.:PORT/hook', /local name/],
    ['https://[::ffff:127.0.0.1]:PORT/hook', /loopback/],
    ['https://[::1]:PORT/hook', /loopback/],
    ['https://127.0.0.1.nip.io:PORT/hook', /loopback/],
    ['https://metadata.google.internal:PORT/hook', /cloud metadata host/],
    ['http://127.0.0.1:PORT/hook', /must use https/],
  ]
  for (const [template, why] of stored)
    test(`stored ${template}`, async () => {
      const hook = await create('https://public.herald-test.net/h')
      const url = template.replace('PORT', String(listener.port))
      await strict.ctx.db.update(webhooks).set({ url }).where(eq(webhooks.id, hook.id))
      const { answer, log } = await attempt(hook.id)
      expect(answer.delivered).toBe(false)
      expect(answer.error).toMatch(why)
      expect(log[0]!.error).toStartWith('refused: ')
      expect(listener.connections).toBe(0)
    })
})

describe('pinning: the attempt connects to the address the check approved', () => {
  type Call = { url: string; init: BunFetchRequestInit }
  function stubFetch(answer: (call: Call, i: number) => Response | Promise<Response>) {
    const calls: Call[] = []
    const spy = spyOn(globalThis, 'fetch').mockImplementation((async (input: unknown, init: unknown) => {
      const call = { url: String(input), init: init as BunFetchRequestInit }
      calls.push(call)
      return answer(call, calls.length - 1)
    }) as typeof fetch)
    return { calls, restore: () => spy.mockRestore() }
  }

  test('rebinding after the check: no second look-up, the request goes to the approved address', async () => {
    const name = 'rebind-late.herald-test.net'
    const aQueries = () => dns.queries.filter((q) => q === `A ${name}`).length
    // Public for the creation check and the delivery check, loopback for anyone asking after.
    dns.hosts.set(name, () => (aQueries() <= 2 ? [PUBLIC] : ['127.0.0.1']))
    const hook = await create(`https://${name}:${listener.port}/hook?x=1`)
    const stub = stubFetch(() => new Response(null, { status: 204 }))
    try {
      const { answer } = await attempt(hook.id)
      expect(answer).toMatchObject({ delivered: true, status: 204 })
    } finally {
      stub.restore()
    }
    expect(aQueries()).toBe(2)
    expect(stub.calls).toHaveLength(1)
    const [call] = stub.calls
    expect(call!.url).toBe(`https://${PUBLIC}:${listener.port}/hook?x=1`)
    expect(new Headers(call!.init.headers).get('host')).toBe(`${name}:${listener.port}`)
    expect(call!.init.tls).toEqual({ serverName: name })
    expect(call!.init.redirect).toBe('manual')
    expect(listener.connections).toBe(0)
  })

  test('an address that cannot be reached: the next approved one is tried, never another', async () => {
    const name = 'two-addresses.herald-test.net'
    dns.hosts.set(name, [PUBLIC, PUBLIC6])
    const stub = stubFetch((_call, i) => {
      if (i === 0) throw Object.assign(new Error('Unable to connect'), { code: 'ECONNREFUSED' })
      return new Response('ok', { status: 200 })
    })
    try {
      const result = await attemptDelivery(`https://${name}/h`, {}, '{}', {
        allowPrivate: false,
        timeoutMs: 1000,
        resolve: hostResolver([dns.address]),
      })
      expect(result).toMatchObject({ status: 200, excerpt: 'ok', error: null })
    } finally {
      stub.restore()
    }
    expect(stub.calls.map((c) => c.url)).toEqual([`https://${PUBLIC}/h`, `https://[${PUBLIC6}]/h`])
    expect(stub.calls.map((c) => new Headers(c.init.headers).get('host'))).toEqual([name, name])
  })

  test('pinnedRequest: the address in the URL, the name in Host and for TLS', async () => {
    const found = await checkTarget(
      'https://Public.Herald-Test.NET.:8443/p/q?x=1#frag',
      false,
      hostResolver([dns.address]),
    )
    if (!('target' in found)) throw new Error(found.problem)
    expect(found.target.addresses).toEqual([PUBLIC, PUBLIC6])
    expect(pinnedRequest(found.target, PUBLIC6)).toEqual({
      url: `https://[${PUBLIC6}]:8443/p/q?x=1`,
      host: 'public.herald-test.net:8443',
      serverName: 'public.herald-test.net',
    })
  })

  test("Bun's fetch to the pinned URL sends the name as SNI and checks the certificate against it", async () => {
    const dir = join(import.meta.dir, 'fixtures')
    const cert = await Bun.file(join(dir, 'hook-cert.pem')).text()
    const key = await Bun.file(join(dir, 'hook-key.pem')).text()
    const seen: { host: string | null; url: string }[] = []
    // The certificate is served only for SNI hook.herald-test.net.
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      tls: [{ cert, key, serverName: 'hook.herald-test.net' }],
      fetch(req) {
        seen.push({ host: req.headers.get('host'), url: req.url })
        return new Response('pinned')
      },
    })
    try {
      const target = (name: string) => ({
        url: new URL(`https://${name}:${server.port}/h?x=1`),
        host: name,
        addresses: ['127.0.0.1'],
      })
      const send = (name: string, ca?: string) => {
        const p = pinnedRequest(target(name), '127.0.0.1')
        return fetch(p.url, {
          headers: { host: p.host },
          tls: { serverName: p.serverName, ...(ca ? { ca } : {}) },
        })
      }
      const ok = await send('hook.herald-test.net', cert)
      expect(await ok.text()).toBe('pinned')
      expect(seen).toEqual([
        {
          host: `hook.herald-test.net:${server.port}`,
          url: `https://hook.herald-test.net:${server.port}/h?x=1`,
        },
      ])
      // Another name: the certificate does not match it.
      await expect(send('other.herald-test.net', cert)).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      })
      // Verification stays on: an untrusted certificate is refused.
      await expect(send('hook.herald-test.net')).rejects.toThrow()
      expect(seen).toHaveLength(1)
    } finally {
      server.stop(true)
    }
  })
})

test('a name that does not resolve is refused through HERALD_DNS_SERVERS too', async () => {
  expect(await deliveryProblem('https://nowhere.herald-test.net/', false, hostResolver([dns.address]))).toBe(
    'must resolve: nowhere.herald-test.net has no address',
  )
})
