import { beforeAll, describe, expect, test } from 'bun:test'
import { createPrivateKey } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { withActor } from '../../src/context'
import { domains } from '../../src/db/schema'
import { registerJobs } from '../../src/jobs'
import { decryptSecret } from '../../src/lib/crypto'
import { generateDkimKey } from '../../src/lib/dkim-key'
import { systemActor } from '../../src/services/actors/actor'
import { reverifyDomainsVerb } from '../../src/services/domains/verbs'
import { invoke } from '../../src/services/verbs/invoke'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { invalid, type Scenario, scenarios } from '../helpers/scenarios'

const dns = await startDnsServer()
const t = await createTestApp({
  env: { HERALD_DNS_SERVERS: dns.address, HERALD_SPF_INCLUDE: 'spf.herald.test' },
})
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const acmeReader = await t.key({ scopes: ['campaigns:read'], clientId: acme })
const globexReader = await t.key({ scopes: ['campaigns:read'], clientId: globex })

interface DnsRecord {
  purpose: string
  name: string
  value: string
  value_parts?: string[]
}
type Domain = { id: string; dns_records: DnsRecord[] } & Record<string, unknown>

const record = (d: Domain, purpose: string) => d.dns_records.find((r) => r.purpose === purpose)!

async function addDomain(domain: string, key = acmeAdmin): Promise<Domain> {
  const res = await t.call('POST', '/api/v1/domains', { key, body: { domain } })
  expect(res.status).toBe(200)
  return res.body.data
}

/** Publishes what the user is told to publish, the DKIM key as one record of several strings. */
function publish(d: Domain) {
  const dkim = record(d, 'dkim')
  dns.zone.set(dkim.name, [dkim.value_parts!])
  dns.zone.set(record(d, 'spf').name, [[record(d, 'spf').value], ['google-site-verification=abc123']])
  dns.zone.set(record(d, 'dmarc').name, [[record(d, 'dmarc').value]])
}

const verify = async (d: Domain, key = acmeReader) => {
  const res = await t.call('POST', `/api/v1/domains/${d.id}/verify`, { key })
  expect(res.status).toBe(200)
  return res.body.data
}

describe('POST /domains', () => {
  test('generates a 2048-bit DKIM key, encrypted at rest, and the exact records to publish', async () => {
    const d = await addDomain('Mail.Example.COM.')
    const month = new Date().toISOString().slice(0, 7).replace('-', '')
    expect(d).toMatchObject({
      client_id: acme,
      domain: 'mail.example.com',
      status: 'pending',
      verified: false,
      dkim_verified: false,
      spf_verified: false,
      dmarc_verified: false,
      dkim_selector: `herald${month}`,
      verification: null,
    })
    const dkim = record(d, 'dkim')
    expect(dkim.name).toBe(`herald${month}._domainkey.mail.example.com`)
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/)
    expect(dkim.value_parts!.length).toBeGreaterThan(1)
    expect(dkim.value_parts!.every((p) => p.length <= 255)).toBe(true)
    expect(dkim.value_parts!.join('')).toBe(dkim.value)
    expect(record(d, 'spf')).toEqual({
      purpose: 'spf',
      type: 'TXT',
      name: 'mail.example.com',
      value: 'v=spf1 include:spf.herald.test ~all',
    } as never)
    expect(record(d, 'dmarc')).toMatchObject({
      name: '_dmarc.mail.example.com',
      value: 'v=DMARC1; p=none; rua=mailto:dmarc-reports@mail.example.com',
    })

    const row = (await t.ctx.db.select().from(domains).where(eq(domains.id, d.id)).limit(1))[0]!
    expect(row.dkimPrivateKey).toStartWith('v1:')
    expect(row.dkimPrivateKey).not.toContain('PRIVATE KEY')
    const key = createPrivateKey(decryptSecret(t.ctx.secretKey, row.dkimPrivateKey))
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048)
  })

  test('internationalised names are stored in their ASCII form', async () => {
    const d = await addDomain('bücher.example')
    expect(d.domain).toBe('xn--bcher-kva.example')
  })

  const rows: Scenario[] = [
    invalid('not a domain', { domain: 'not a domain' }, 'domain'),
    invalid('an IP address', { domain: '192.0.2.1' }, 'domain'),
    invalid('a single label', { domain: 'localhost' }, 'domain'),
    invalid('unknown member', { domain: 'a.example', dkim: true }, 'dkim'),
    invalid('missing domain', {}, 'domain'),
    invalid('platform key without client_id', { domain: 'b.example' }, 'client_id', {
      key: () => t.adminKey,
    }),
    invalid('platform key with an unknown client_id', { domain: 'b.example' }, 'client_id', {
      key: () => t.adminKey,
      path: `/api/v1/domains?client_id=${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`,
    }),
    {
      name: 'a key without admin:*',
      key: async () => await t.key({ scopes: ['templates:write', 'domains:read'], clientId: acme }),
      body: { domain: 'c.example' },
      status: 403,
      code: 'FORBIDDEN',
    },
  ]
  scenarios(t, { method: 'POST', path: '/api/v1/domains', key: () => acmeAdmin }, rows)

  test('the same domain twice in one client → 409 CONFLICT with the existing id', async () => {
    const d = await addDomain('dup.example')
    const res = await t.call('POST', '/api/v1/domains', { key: acmeAdmin, body: { domain: 'DUP.example' } })
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { existing_id: d.id } })
  })

  test('the same domain in another client gets its own selector (both publish in one zone)', async () => {
    const a = await addDomain('shared.example')
    const res = await t.call('POST', `/api/v1/domains?client_id=${globex}`, {
      body: { domain: 'shared.example' },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(globex)
    expect(res.body.data.dkim_selector).toBe(`${a.dkim_selector}b`)
  })

  test('a platform-wide admin key creates for the client it names', async () => {
    const res = await t.call('POST', `/api/v1/domains?client_id=${globex}`, {
      body: { domain: 'globex.example' },
    })
    expect(res.status).toBe(200)
    expect(res.body.data.client_id).toBe(globex)
  })
})

describe('tenancy and reads', () => {
  test('every route answers 404 for another tenant’s domain, and lists only the caller’s', async () => {
    const d = await addDomain('tenant.example')
    for (const [method, path] of [
      ['GET', `/api/v1/domains/${d.id}`],
      ['POST', `/api/v1/domains/${d.id}/verify`],
    ] as const) {
      const res = await t.call(method, path, { key: globexReader })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('NOT_FOUND')
    }
    const globexAdmin = await t.key({ scopes: ['admin:*'], clientId: globex })
    expect((await t.call('DELETE', `/api/v1/domains/${d.id}`, { key: globexAdmin })).status).toBe(404)
    const list = await t.call('GET', `/api/v1/domains?limit=200&client_id=${acme}`, { key: globexReader })
    expect(list.status).toBe(200)
    expect(list.body.data.every((x: Domain) => x.client_id === globex)).toBe(true)
    expect(list.body.data.some((x: Domain) => x.id === d.id)).toBe(false)
    const mine = await t.call('GET', '/api/v1/domains?limit=200', { key: acmeReader })
    expect(mine.body.data.some((x: Domain) => x.id === d.id)).toBe(true)
    expect(mine.body.pagination.total).toBe(mine.body.data.length)
  })

  test('a platform-wide key lists every client and narrows with client_id', async () => {
    const all = await t.call('GET', '/api/v1/domains?limit=200')
    const clientsSeen = new Set(all.body.data.map((x: Domain) => x.client_id))
    expect(clientsSeen.has(acme) && clientsSeen.has(globex)).toBe(true)
    const narrowed = await t.call('GET', `/api/v1/domains?limit=200&client_id=${globex}`)
    expect(narrowed.body.data.every((x: Domain) => x.client_id === globex)).toBe(true)
    const bad = await t.call('GET', '/api/v1/domains?client_id=nope')
    expect(bad.status).toBe(422)
  })

  test('GET by id (UUID or dom_ prefixed), 404 for a non-id, DELETE needs admin:*', async () => {
    const d = await addDomain('read.example')
    expect((await t.call('GET', `/api/v1/domains/${d.id}`, { key: acmeReader })).body.data.id).toBe(d.id)
    const prefixed = `dom_${d.id.replaceAll('-', '')}`
    expect((await t.call('GET', `/api/v1/domains/${prefixed}`, { key: acmeReader })).status).toBe(200)
    expect((await t.call('GET', '/api/v1/domains/not-an-id', { key: acmeReader })).status).toBe(404)
    const forbidden = await t.call('DELETE', `/api/v1/domains/${d.id}`, { key: acmeReader })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error.details.required_scope).toBe('admin:*')
    const del = await t.call('DELETE', `/api/v1/domains/${d.id}`, { key: acmeAdmin })
    expect(del.body.data).toEqual({ id: d.id, client_id: acme, deleted: true })
    expect((await t.call('GET', `/api/v1/domains/${d.id}`, { key: acmeReader })).status).toBe(404)
  })
})

describe('PATCH /domains/{id}', () => {
  // Domains the rows act on, added before the table runs.
  let mine: Domain
  let theirs: Domain
  beforeAll(async () => {
    mine = await addDomain('warm.example')
    theirs = await addDomain('theirs.example', await t.key({ scopes: ['admin:*'], clientId: globex }))
  })
  const item = () => `/api/v1/domains/${mine.id}`
  const rows: Scenario[] = [
    { name: 'warm-up off', body: { warmup: false }, status: 200 },
    { name: 'warm-up on', body: { warmup: true }, status: 200 },
    { name: 'an empty patch changes nothing', body: {}, status: 200 },
    invalid('warmup not a boolean', { warmup: 'no' }, 'warmup'),
    invalid('warmup null', { warmup: null }, 'warmup'),
    invalid('unknown member', { domain: 'other.example' }, 'domain'),
    {
      name: 'another tenant’s domain',
      path: () => `/api/v1/domains/${theirs.id}`,
      body: { warmup: false },
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'a key without admin:*',
      key: () => acmeReader,
      body: { warmup: false },
      status: 403,
      code: 'FORBIDDEN',
    },
  ]
  scenarios(
    t,
    { method: 'PATCH', path: '', key: () => acmeAdmin },
    rows.map((r) => ({ path: item, ...r })),
  )

  test('the change is kept, answered as GET answers it, and leaves another tenant’s domain alone', async () => {
    expect(theirs.warmup).toBe(true) // HERALD_WARMUP is on by default
    const off = await t.call('PATCH', item(), { key: acmeAdmin, body: { warmup: false } })
    expect(off.body.data).toMatchObject({ id: mine.id, warmup: false, warmup_progress: null })
    const read = await t.call('GET', item(), { key: acmeReader })
    expect(read.body.data).toEqual(off.body.data)
    const list = await t.call('GET', '/api/v1/domains?limit=200', { key: acmeReader })
    expect(list.body.data.find((d: Domain) => d.id === mine.id).warmup).toBe(false)
    const other = await t.call('GET', `/api/v1/domains/${theirs.id}`, { key: globexReader })
    expect(other.body.data.warmup).toBe(true)
  })
})

describe('POST /domains/{id}/verify against a real DNS server', () => {
  test('nothing published: every check fails and says what to publish', async () => {
    const d = await addDomain('fresh.example')
    const v = await verify(d)
    expect(v).toMatchObject({
      status: 'pending',
      verified: false,
      dkim_verified: false,
      spf_verified: false,
      dmarc_verified: false,
    })
    expect(v.verification.dkim).toMatchObject({ verified: false, outcome: 'fail' })
    expect(v.verification.dkim.message).toContain(`No DKIM record found at ${record(d, 'dkim').name}`)
    expect(v.verification.dkim.message).toContain(record(d, 'dkim').value)
    expect(v.verification.spf.message).toContain('No SPF record found at fresh.example')
    expect(v.verification.spf.message).toContain('v=spf1 include:spf.herald.test ~all')
    expect(v.verification.dmarc.message).toContain('No DMARC record found at _dmarc.fresh.example')
    expect(v.verification.checked_at).toMatch(/Z$/)
  })

  test('published as a user would (DKIM as several strings): all three pass', async () => {
    const d = await addDomain('good.example')
    publish(d)
    const v = await verify(d)
    expect(v).toMatchObject({
      status: 'verified',
      verified: true,
      dkim_verified: true,
      spf_verified: true,
      dmarc_verified: true,
    })
    expect(v.verified_at).not.toBeNull()
    expect(v.verification.dkim.outcome).toBe('pass')
    expect(v.verification.dkim.found).toEqual([record(d, 'dkim').value])
    expect(v.verification.spf.found).toEqual([record(d, 'spf').value])
    expect(v.verification.dmarc.message).toContain('p=none')
    // and the state is stored: GET shows it
    expect(
      (await t.call('GET', `/api/v1/domains/${d.id}`, { key: acmeReader })).body.data.dkim_verified,
    ).toBe(true)
  })

  test('an SPF record longer than 255 characters, split in two strings, beside other TXT records', async () => {
    const d = await addDomain('longspf.example')
    publish(d)
    const ips = Array.from({ length: 22 }, (_, i) => `ip4:198.51.100.${i + 1}`).join(' ')
    const spf = `v=spf1 ${ips} include:spf.herald.test -all`
    expect(spf.length).toBeGreaterThan(255)
    dns.zone.set('longspf.example', [
      ['apple-domain-verification=xyz'],
      [spf.slice(0, 255), spf.slice(255)],
      ['ms=ms123'],
    ])
    const v = await verify(d)
    expect(v.verification.spf).toMatchObject({ outcome: 'pass', found: [spf] })
  })

  const dkimFailures: { name: string; value: (d: Domain, other: string) => string[][]; expect: string }[] = [
    {
      name: 'truncated at 255 characters',
      value: (d) => [[record(d, 'dkim').value_parts![0]!]],
      expect: 'cut short',
    },
    {
      name: 'another key',
      value: (_d, other) => [[`v=DKIM1; k=rsa; p=${other.slice(0, 200)}`, other.slice(200)]],
      expect: 'different public key',
    },
    {
      name: 'malformed key',
      value: () => [['v=DKIM1; k=rsa; p=MIIBIjANBg!!notbase64$$']],
      expect: 'malformed',
    },
    {
      name: 'revoked (empty p=)',
      value: () => [['v=DKIM1; k=rsa; p=']],
      expect: 'has no public key',
    },
    {
      name: 'an ed25519 record',
      value: () => [['v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=']],
      expect: 'k=ed25519',
    },
    {
      name: 'two records at the selector',
      value: (d) => [record(d, 'dkim').value_parts!, ['v=DKIM1; k=rsa; p=AAAA']],
      expect: 'exactly one',
    },
  ]
  test.each(dkimFailures)('DKIM $name → fails with an explanation', async (row) => {
    const d = await addDomain(`dkim-${dkimFailures.indexOf(row)}.example`)
    publish(d)
    const other = (await generateDkimKey()).publicKey
    dns.zone.set(record(d, 'dkim').name, row.value(d, other))
    const v = await verify(d)
    expect(v).toMatchObject({ dkim_verified: false, spf_verified: true, verified: false, status: 'pending' })
    expect(v.verification.dkim.outcome).toBe('fail')
    expect(v.verification.dkim.message).toContain(row.expect)
    expect(v.verification.dkim.message).toContain(record(d, 'dkim').name)
  })

  const spfFailures: { name: string; records: string[][]; expect: string }[] = [
    {
      name: 'without Herald’s include',
      records: [['v=spf1 mx ~all']],
      expect: '"v=spf1 mx include:spf.herald.test ~all"',
    },
    {
      name: 'ending in +all',
      records: [['v=spf1 include:spf.herald.test +all']],
      expect: 'every server on the Internet',
    },
    {
      name: 'two SPF records',
      records: [['v=spf1 mx ~all'], ['v=spf1 include:spf.herald.test ~all']],
      expect: 'Merge them',
    },
    {
      name: 'only other TXT records',
      records: [['google-site-verification=abc']],
      expect: 'No SPF record found',
    },
  ]
  test.each(spfFailures)('SPF $name → fails with an explanation', async (row) => {
    const d = await addDomain(`spf-${spfFailures.indexOf(row)}.example`)
    publish(d)
    dns.zone.set(d.domain as string, row.records)
    const v = await verify(d)
    expect(v).toMatchObject({ dkim_verified: true, spf_verified: false, verified: false })
    expect(v.verification.spf.message).toContain(row.expect)
  })

  const dmarcFailures: { name: string; records: string[][] | null; expect: string }[] = [
    { name: 'missing', records: null, expect: 'No DMARC record found' },
    { name: 'an invalid policy', records: [['v=DMARC1; p=monitor']], expect: 'invalid policy p=monitor' },
    { name: 'no policy', records: [['v=DMARC1; rua=mailto:x@y.example']], expect: 'has no policy' },
    { name: 'not a DMARC record', records: [['hello']], expect: 'does not start with v=DMARC1' },
  ]
  test.each(dmarcFailures)('DMARC $name → dmarc_verified false, the domain still verified', async (row) => {
    const d = await addDomain(`dmarc-${dmarcFailures.indexOf(row)}.example`)
    publish(d)
    if (row.records) dns.zone.set(record(d, 'dmarc').name, row.records)
    else dns.zone.delete(record(d, 'dmarc').name)
    const v = await verify(d)
    expect(v).toMatchObject({
      dkim_verified: true,
      spf_verified: true,
      dmarc_verified: false,
      verified: true,
    })
    expect(v.verification.dmarc.message).toContain(row.expect)
  })

  test('a DNS failure (SERVFAIL) is reported as temporary and keeps what was verified', async () => {
    const d = await addDomain('flaky.example')
    publish(d)
    expect((await verify(d)).verified).toBe(true)
    dns.failing.add(record(d, 'dkim').name)
    const v = await verify(d)
    dns.failing.delete(record(d, 'dkim').name)
    expect(v).toMatchObject({ dkim_verified: true, verified: true, status: 'verified' })
    expect(v.verification.dkim.outcome).toBe('error')
    expect(v.verification.dkim.message).toContain('usually temporary')
  })

  test('verify is idempotent with an Idempotency-Key (the stored answer is replayed)', async () => {
    const d = await addDomain('idem.example')
    const headers = { 'idempotency-key': `verify-${d.id}` }
    const first = await t.call('POST', `/api/v1/domains/${d.id}/verify`, { key: acmeReader, headers })
    publish(d)
    const second = await t.call('POST', `/api/v1/domains/${d.id}/verify`, { key: acmeReader, headers })
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(second.body).toEqual(first.body)
  })
})

describe('the domains.reverify job', () => {
  test('flags a verified domain whose DKIM record disappeared, and clears the flag once fixed', async () => {
    const d = await addDomain('job.example')
    publish(d)
    await verify(d)
    const pending = await addDomain('never.example') // never verified: not re-checked
    dns.zone.delete(record(d, 'dkim').name)
    const summary = await invoke(reverifyDomainsVerb, withActor(t.ctx, systemActor('test'), 'test'), {})
    expect(summary.broken).toContain('job.example')
    expect(summary.broken).not.toContain('never.example')
    const broken = (await t.call('GET', `/api/v1/domains/${d.id}`, { key: acmeReader })).body.data
    expect(broken).toMatchObject({ status: 'broken', dkim_verified: false, verified: false })
    expect(broken.verification.dkim.message).toContain('No DKIM record found')
    expect(
      (await t.call('GET', `/api/v1/domains/${pending.id}`, { key: acmeReader })).body.data.verification,
    ).toBeNull()

    publish(d)
    registerJobs(t.ctx) // the named job, as the scheduler and `herald jobs run` find it
    expect(t.ctx.jobs.list().map((j) => j.name)).toContain('domains.reverify')
    await t.ctx.jobs.runNow('domains.reverify')
    expect(t.ctx.jobs.list().find((j) => j.name === 'domains.reverify')?.last_error).toBeNull()
    expect((await t.call('GET', `/api/v1/domains/${d.id}`, { key: acmeReader })).body.data.status).toBe(
      'verified',
    )
  })
})
