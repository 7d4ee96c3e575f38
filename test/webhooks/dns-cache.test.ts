import { describe, expect, spyOn, test } from 'bun:test'
import { cachingResolver, type HostResolver } from '../../src/webhooks/ssrf'
import { createWebhookWorker } from '../../src/webhooks/worker'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'

// The worker shares one look-up of an endpoint's host among the attempts of a few seconds (a
// burst would otherwise ask DNS once per delivery). Only the look-up is shared: every attempt
// still judges every address of the answer and connects to one of them, and an answer older
// than the cache's time is asked again and judged again.

const PUBLIC = '93.184.215.14'

describe('cachingResolver', () => {
  function counting(answers: () => Awaited<ReturnType<HostResolver>>) {
    const asked: string[] = []
    const resolve: HostResolver = async (host) => {
      asked.push(host)
      await Bun.sleep(1)
      return answers()
    }
    return { asked, resolve }
  }

  test('concurrent look-ups of one host share one query; another host has its own', async () => {
    const { asked, resolve } = counting(() => ({ addresses: [PUBLIC] }))
    const cached = cachingResolver(resolve, 5000, () => 0)
    const answers = await Promise.all([cached('a.example'), cached('a.example'), cached('b.example')])
    expect(answers).toEqual([{ addresses: [PUBLIC] }, { addresses: [PUBLIC] }, { addresses: [PUBLIC] }])
    expect(asked).toEqual(['a.example', 'b.example'])
  })

  test('an answer serves for the time given, then the name is asked again', async () => {
    let now = 0
    let address = PUBLIC
    const { asked, resolve } = counting(() => ({ addresses: [address] }))
    const cached = cachingResolver(resolve, 5000, () => now)
    expect(await cached('a.example')).toEqual({ addresses: [PUBLIC] })
    address = '127.0.0.1'
    now = 4999
    expect(await cached('a.example')).toEqual({ addresses: [PUBLIC] })
    now = 5000
    expect(await cached('a.example')).toEqual({ addresses: ['127.0.0.1'] })
    expect(asked).toHaveLength(2)
  })

  test('a failure or an empty answer is kept one second at most', async () => {
    let now = 0
    const { asked, resolve } = counting(() => ({ error: 'ESERVFAIL' }))
    const cached = cachingResolver(resolve, 5000, () => now)
    await cached('a.example')
    now = 999
    await cached('a.example')
    expect(asked).toHaveLength(1)
    now = 1000
    await cached('a.example')
    expect(asked).toHaveLength(2)
  })

  test('0 shares nothing', async () => {
    const { asked, resolve } = counting(() => ({ addresses: [PUBLIC] }))
    const cached = cachingResolver(resolve, 0, () => 0)
    await cached('a.example')
    await cached('a.example')
    expect(asked).toHaveLength(2)
  })
})

test('through the worker: a cached answer still pins to its approved address; a new one is judged again', async () => {
  const dns = await startDnsServer()
  const name = 'cached.herald-test.net'
  dns.hosts.set(name, [PUBLIC])
  let now = Date.now()
  const t = await createTestApp({ env: { HERALD_DNS_SERVERS: dns.address }, clock: { now: () => now } })
  const w = createWebhookWorker(t.ctx, { schedule: [0], dnsCacheMs: 5000 })
  const clientId = await t.client('DNS')
  const key = await t.key({ scopes: ['contacts:write'], clientId })
  const hook = (
    await t.call('POST', '/api/v1/webhooks', {
      key,
      body: { url: `https://${name}/h`, events: ['contact.unsubscribed'] },
    })
  ).body.data
  const unsubscribe = async () => {
    const c = (
      await t.call('POST', '/api/v1/contacts', { key, body: { email: `${Bun.randomUUIDv7()}@example.com` } })
    ).body.data
    await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key, body: { status: 'unsubscribed' } })
  }
  const lookups = () => dns.queries.filter((q) => q === `A ${name}`).length
  const urls: string[] = []
  const stub = spyOn(globalThis, 'fetch').mockImplementation((async (input: unknown) => {
    urls.push(String(input))
    return new Response(null, { status: 204 })
  }) as typeof fetch)
  try {
    const atCreation = lookups()
    for (let i = 0; i < 5; i++) await unsubscribe()
    await w.drain()
    expect(urls).toEqual(Array(5).fill(`https://${PUBLIC}/h`))
    expect(lookups()).toBe(atCreation + 1)
    // The name now points at the loopback: within the cache's time the attempts still go to the
    // address approved before, never to the new one.
    dns.hosts.set(name, ['127.0.0.1'])
    await unsubscribe()
    await w.drain()
    expect(urls).toHaveLength(6)
    expect(urls.at(-1)).toBe(`https://${PUBLIC}/h`)
    // Past it, the name is asked again and the new answer refused.
    now += 5000
    await unsubscribe()
    await w.drain()
    expect(urls).toHaveLength(6)
    expect(lookups()).toBe(atCreation + 2)
    const log = (await t.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { key })).body.data
    expect(log[0]).toMatchObject({ status: 'failed' })
    expect(log[0].attempt_log[0].error).toMatch(/^refused: .*127\.0\.0\.1, a loopback address/)
  } finally {
    stub.mockRestore()
    await w.stop()
  }
})
