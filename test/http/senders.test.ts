import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { invalid, type Scenario, scenarios } from '../helpers/scenarios'

const dns = await startDnsServer()
const t = await createTestApp({ env: { HERALD_DNS_SERVERS: dns.address, HERALD_SENDING_IP: '192.0.2.25' } })
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const acmeReader = await t.key({ scopes: ['campaigns:read'], clientId: acme })
const globexAdmin = await t.key({ scopes: ['admin:*'], clientId: globex })

async function create(body: Record<string, unknown>, key = acmeAdmin) {
  const res = await t.call('POST', '/api/v1/senders', { key, body })
  expect(res.status).toBe(200)
  return res.body.data as { id: string } & Record<string, unknown>
}

describe('sender CRUD', () => {
  test('create answers the sender, unverified until its domain is', async () => {
    const s = await create({
      from_email: 'News@Acme.example',
      from_name: 'Acme News',
      reply_to: 'help@acme.example',
    })
    expect(s).toMatchObject({
      client_id: acme,
      from_email: 'News@Acme.example',
      from_name: 'Acme News',
      reply_to: 'help@acme.example',
      verified: false,
      domain_id: null,
    })
  })

  const rows: Scenario[] = [
    invalid('bad from_email', { from_email: 'nope', from_name: 'x' }, 'from_email'),
    invalid('from_email at an IP literal', { from_email: 'a@192.0.2.1', from_name: 'x' }, 'from_email'),
    invalid('missing from_name', { from_email: 'a@acme.example' }, 'from_name'),
    invalid('empty from_name', { from_email: 'a@acme.example', from_name: '' }, 'from_name'),
    invalid('bad reply_to', { from_email: 'a@acme.example', from_name: 'x', reply_to: 'nope' }, 'reply_to'),
    invalid('unknown member', { from_email: 'a@acme.example', from_name: 'x', verified: true }, 'verified'),
    {
      name: 'not admin',
      key: () => acmeReader,
      body: { from_email: 'a@acme.example', from_name: 'x' },
      status: 403,
      code: 'FORBIDDEN',
    },
    invalid('platform key without client_id', { from_email: 'a@acme.example', from_name: 'x' }, 'client_id', {
      key: () => t.adminKey,
    }),
  ]
  scenarios(t, { method: 'POST', path: '/api/v1/senders', key: () => acmeAdmin }, rows)

  test('an address already used in the client (any case) → 409 with the existing id; other clients may reuse it', async () => {
    const s = await create({ from_email: 'dup@acme.example', from_name: 'A' })
    const res = await t.call('POST', '/api/v1/senders', {
      key: acmeAdmin,
      body: { from_email: 'DUP@acme.example', from_name: 'B' },
    })
    expect(res.status).toBe(409)
    expect(res.body.error.details.existing_id).toBe(s.id)
    await create({ from_email: 'dup@acme.example', from_name: 'G' }, globexAdmin)
  })

  test('PATCH is partial; moving onto a taken address → 409; reply_to can be cleared', async () => {
    const a = await create({ from_email: 'a@patch.example', from_name: 'A', reply_to: 'r@patch.example' })
    await create({ from_email: 'b@patch.example', from_name: 'B' })
    const named = await t.call('PATCH', `/api/v1/senders/${a.id}`, {
      key: acmeAdmin,
      body: { from_name: 'A2' },
    })
    expect(named.body.data).toMatchObject({
      from_name: 'A2',
      from_email: 'a@patch.example',
      reply_to: 'r@patch.example',
    })
    const taken = await t.call('PATCH', `/api/v1/senders/${a.id}`, {
      key: acmeAdmin,
      body: { from_email: 'B@patch.example' },
    })
    expect(taken.status).toBe(409)
    const same = await t.call('PATCH', `/api/v1/senders/${a.id}`, {
      key: acmeAdmin,
      body: { from_email: 'A@patch.example' },
    })
    expect(same.status).toBe(200)
    const cleared = await t.call('PATCH', `/api/v1/senders/${a.id}`, {
      key: acmeAdmin,
      body: { reply_to: null },
    })
    expect(cleared.body.data.reply_to).toBeNull()
    expect(
      (await t.call('PATCH', `/api/v1/senders/${a.id}`, { key: acmeReader, body: { from_name: 'x' } }))
        .status,
    ).toBe(403)
  })

  test('DELETE, then 404', async () => {
    const s = await create({ from_email: 'bye@acme.example', from_name: 'Bye' })
    expect((await t.call('DELETE', `/api/v1/senders/${s.id}`, { key: acmeReader })).status).toBe(403)
    const del = await t.call('DELETE', `/api/v1/senders/${s.id}`, { key: acmeAdmin })
    expect(del.body.data).toEqual({ id: s.id, client_id: acme, deleted: true })
    expect((await t.call('GET', `/api/v1/senders/${s.id}`, { key: acmeReader })).status).toBe(404)
  })

  test('another tenant: 404 on GET, PATCH and DELETE; absent from its lists', async () => {
    const s = await create({ from_email: 'private@acme.example', from_name: 'P' })
    expect((await t.call('GET', `/api/v1/senders/${s.id}`, { key: globexAdmin })).status).toBe(404)
    expect(
      (await t.call('PATCH', `/api/v1/senders/${s.id}`, { key: globexAdmin, body: { from_name: 'x' } }))
        .status,
    ).toBe(404)
    expect((await t.call('DELETE', `/api/v1/senders/${s.id}`, { key: globexAdmin })).status).toBe(404)
    const list = await t.call('GET', `/api/v1/senders?limit=200&client_id=${acme}`, { key: globexAdmin })
    expect(list.body.data.every((x: { client_id: string }) => x.client_id === globex)).toBe(true)
    const mine = await t.call('GET', '/api/v1/senders?limit=200', { key: acmeReader })
    expect(mine.body.data.some((x: { id: string }) => x.id === s.id)).toBe(true)
    expect(mine.body.pagination.total).toBe(mine.body.data.length)
  })
})

describe('verified follows the client’s domain (DKIM and SPF)', () => {
  test('false before, true once the domain verifies (also for subdomain addresses), false again when it breaks', async () => {
    const sender = await create({ from_email: 'hello@brand.example', from_name: 'Brand' })
    const sub = await create({ from_email: 'team@mail.brand.example', from_name: 'Brand team' })
    const globexSender = await create(
      { from_email: 'hello@brand.example', from_name: 'Other tenant' },
      globexAdmin,
    )
    const domain = (
      await t.call('POST', '/api/v1/domains', { key: acmeAdmin, body: { domain: 'brand.example' } })
    ).body.data
    const spf = domain.dns_records.find((r: { purpose: string }) => r.purpose === 'spf')
    expect(spf.value).toBe('v=spf1 ip4:192.0.2.25 ~all')
    for (const r of domain.dns_records) dns.zone.set(r.name, [r.value_parts ?? [r.value]])
    // a CIDR that contains the sending IP also authorises it
    dns.zone.set('brand.example', [['v=spf1 ip4:192.0.2.0/24 -all']])
    expect(
      (await t.call('POST', `/api/v1/domains/${domain.id}/verify`, { key: acmeReader })).body.data.verified,
    ).toBe(true)

    const get = async (id: string, key = acmeReader) =>
      (await t.call('GET', `/api/v1/senders/${id}`, { key })).body.data
    expect(await get(sender.id)).toMatchObject({ verified: true, domain_id: domain.id })
    expect(await get(sub.id)).toMatchObject({ verified: true, domain_id: domain.id })
    expect((await get(globexSender.id, globexAdmin)).verified).toBe(false)
    const list = await t.call('GET', '/api/v1/senders?limit=200', { key: acmeReader })
    expect(list.body.data.find((x: { id: string }) => x.id === sender.id).verified).toBe(true)

    dns.zone.set('brand.example', [['v=spf1 mx -all']])
    const v = (await t.call('POST', `/api/v1/domains/${domain.id}/verify`, { key: acmeReader })).body.data
    expect(v).toMatchObject({ spf_verified: false, status: 'broken' })
    expect(v.verification.spf.message).toContain('ip4:192.0.2.25')
    expect((await get(sender.id)).verified).toBe(false)
  })
})
