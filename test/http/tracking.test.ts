import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { encodeLinkToken, encodePreviewToken, PREVIEW_SCOPE, trackingKey } from '../../src/lib/tracking-token'
import { createTestApp } from '../helpers/app'
import { jsonOf, rowsOf } from '../helpers/raw-sql'
import { eventually } from '../helpers/receiver'
import { startTestSender } from '../helpers/sender'

const t = await createTestApp()
startTestSender(t)
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'

/** Sends a one-recipient campaign and returns the links of the captured message. */
async function sentMessage(email: string) {
  const clientId = await t.client('Acme')
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const get = async (path: string) => (await t.call('GET', path, { key })).body.data
  const post = async (path: string, body?: unknown) => (await t.call('POST', path, { key, body })).body.data
  const list = await post('/api/v1/lists', { name: 'L' })
  const contact = await post('/api/v1/contacts', { email, list_ids: [list.id] })
  const c = await post('/api/v1/campaigns', {
    name: 'C',
    list_id: list.id,
    subject: 'Hi',
    body_html:
      '<p><a href="https://shop.example/deal?a=1&amp;b=2">Deal</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
  })
  await post(`/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  await eventually(async () => expect((await get(`/api/v1/campaigns/${c.id}`)).status).toBe('sent'))
  const [m] = await get(`/api/v1/messages?campaign_id=${c.id}`)
  const full = await get(`/api/v1/messages/${m.id}`)
  const path = (re: RegExp) => new URL(re.exec(full.body_html)![1]!).pathname
  return {
    clientId,
    key,
    get,
    contact,
    campaign: c,
    message: m,
    open: path(/src="([^"]+\/t\/o\/[^"]+)"/),
    click: path(/href="([^"]+\/t\/c\/[^"]+)"/),
    unsubscribe: path(/href="([^"]+\/u\/[^"]+)"/),
    header: /<([^>]+)>/.exec(full.headers['list-unsubscribe'])![1]!,
  }
}

const hit = (method: string, path: string, init: { ua?: string; body?: string } = {}) =>
  t.app.handle(
    new Request(`http://localhost:8080${path}`, {
      method,
      headers: {
        ...(init.ua ? { 'user-agent': init.ua } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.body,
    }),
  )

const eventsOf = async (messageId: string, type: string) =>
  (
    await rowsOf<{ data: unknown }>(
      t,
      sql`SELECT data FROM events WHERE message_id = ${messageId} AND type = ${type} ORDER BY seq`,
    )
  ).map((r) => jsonOf<Record<string, unknown>>(r.data))

describe('open pixel and click redirect', () => {
  test('an open returns a GIF and records email.opened; opens are unique per recipient in stats', async () => {
    const s = await sentMessage('ann@example.com')
    const r = await hit('GET', s.open, { ua: BROWSER })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('image/gif')
    expect(r.headers.get('cache-control')).toContain('no-store')
    expect(
      Buffer.from(await r.arrayBuffer())
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a')
    await hit('GET', s.open, { ua: BROWSER })
    // The second fetch is counted on the message, not recorded again (no event, no webhook).
    const opened = await eventsOf(s.message.id, 'email.opened')
    expect(opened).toHaveLength(1)
    expect(await s.get(`/api/v1/messages/${s.message.id}`)).toMatchObject({ opens_count: 2 })
    expect(opened[0]).toMatchObject({ email: 'ann@example.com', user_agent: BROWSER, machine: false })
    expect(opened[0]!.message_id).toBe(`msg_${s.message.id.replaceAll('-', '')}`)
    const stats = await s.get(`/api/v1/campaigns/${s.campaign.id}/stats`)
    expect(stats).toMatchObject({ delivered: 1, opened: 1, open_rate: 1, machine_opened: 0 })
  })

  test('a privacy-proxy open (bare Mozilla/5.0) is flagged machine and kept out of opened', async () => {
    const s = await sentMessage('mpp@example.com')
    await hit('GET', s.open, { ua: 'Mozilla/5.0' })
    await hit('GET', s.open, { ua: 'Mozilla/5.0' })
    await hit('GET', s.open)
    expect((await eventsOf(s.message.id, 'email.opened'))[0]).toMatchObject({ machine: true })
    // The first machine fetch is an event; every fetch is counted on the message, which counts once in stats.
    expect(await eventsOf(s.message.id, 'email.opened')).toHaveLength(1)
    expect(await s.get(`/api/v1/messages/${s.message.id}`)).toMatchObject({ opens_count: 3 })
    expect(await s.get(`/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
      opened: 0,
      machine_opened: 1,
    })
  })

  test('a click redirects to the URL that was in the message and records email.clicked (and the open)', async () => {
    const s = await sentMessage('bob@example.com')
    const r = await hit('GET', s.click, { ua: BROWSER })
    expect(r.status).toBe(302)
    expect(r.headers.get('location')).toBe('https://shop.example/deal?a=1&b=2')
    await hit('GET', s.click, { ua: BROWSER })
    expect(await eventsOf(s.message.id, 'email.clicked')).toHaveLength(1)
    expect(await s.get(`/api/v1/messages/${s.message.id}`)).toMatchObject({ clicks_count: 2 })
    expect((await eventsOf(s.message.id, 'email.clicked'))[0]).toMatchObject({
      url: 'https://shop.example/deal?a=1&b=2',
      email: 'bob@example.com',
      user_agent: BROWSER,
    })
    expect(await s.get(`/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({
      clicked: 1,
      opened: 1,
      click_rate: 1,
    })
  })

  test('tokens cannot be forged, altered, reused for another kind, or moved to another tenant', async () => {
    const s = await sentMessage('cy@example.com')
    const token = s.click.slice('/t/c/'.length)
    const [payload, sig] = token.split('.') as [string, string]
    const key = trackingKey(t.ctx.secretKey)
    const otherUrl = encodeLinkToken(key, s.clientId, 'click', s.message.id, 'https://evil.example/')
    const otherTenant = encodeLinkToken(
      key,
      await t.client('Other'),
      'click',
      s.message.id,
      'https://shop.example/deal?a=1&b=2',
    )
    const wrongKey = encodeLinkToken(
      Buffer.alloc(32, 7),
      s.clientId,
      'click',
      s.message.id,
      'https://evil.example/',
    )
    const cases = [
      // An altered signature: its first character changed (every bit of it counts; the last
      // character carries padding bits, so changing it could leave the signature as it was).
      `/t/c/${payload}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`,
      `/t/c/${otherUrl.split('.')[0]}.${sig}`, // another URL under the real signature
      `/t/c/${otherTenant}`, // signed for another client
      `/t/c/${wrongKey}`, // signed with another instance's key
      `/t/c/${s.open.slice('/t/o/'.length)}`, // an open token used as a click
      `/t/o/${token}`, // a click token used as an open
      '/t/c/not-a-token',
      `/u/${token}`,
    ]
    for (const path of cases) {
      const r = await hit('GET', path, { ua: BROWSER })
      expect(r.status, path).toBe(404)
      expect((await r.json()).error.code).toBe('NOT_FOUND')
    }
    // A signed URL that cannot be a Location header (a line break) is refused, not recorded.
    const broken = encodeLinkToken(
      key,
      s.clientId,
      'click',
      s.message.id,
      'https://shop.example/a\r\nSet-Cookie: x=1',
    )
    expect((await hit('GET', `/t/c/${broken}`)).status).toBe(404)
    // A URL that was not in the message but is signed correctly (we never sign such a thing)
    // would be accepted: the signature is the proof that Herald put it there.
    expect(await eventsOf(s.message.id, 'email.clicked')).toHaveLength(0)
  })
})

describe('unsubscribe', () => {
  test('GET shows a page with a confirm button and changes nothing', async () => {
    const s = await sentMessage('dee@example.com')
    const r = await hit('GET', s.unsubscribe)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('text/html')
    const html = await r.text()
    expect(html).toContain('<form method="post">')
    expect((await s.get(`/api/v1/contacts/${s.contact.id}`)).status).toBe('subscribed')
  })

  test('RFC 8058 one-click POST unsubscribes at once, suppresses, and is attributed to the campaign', async () => {
    const s = await sentMessage('eve@example.com')
    expect(new URL(s.header).pathname).toBe(s.unsubscribe)
    const r = await hit('POST', new URL(s.header).pathname, { body: 'List-Unsubscribe=One-Click' })
    expect(r.status).toBe(200)
    expect((await s.get(`/api/v1/contacts/${s.contact.id}`)).status).toBe('unsubscribed')
    const sup = (await t.call('GET', '/api/v1/suppressions', { key: s.key })).body.data
    expect(sup).toContainEqual(expect.objectContaining({ email: 'eve@example.com', source: 'unsubscribe' }))
    const [e] = await rowsOf<{ data: unknown; campaign_id: string }>(
      t,
      sql`SELECT data, campaign_id FROM events WHERE type = 'contact.unsubscribed' AND message_id = ${s.message.id}`,
    )
    expect(e!.campaign_id).toBe(s.campaign.id)
    expect(jsonOf(e!.data)).toMatchObject({
      email: 'eve@example.com',
      source: 'one_click',
      campaign_id: `cmp_${s.campaign.id.replaceAll('-', '')}`,
      message_id: `msg_${s.message.id.replaceAll('-', '')}`,
    })
    expect(await s.get(`/api/v1/campaigns/${s.campaign.id}/stats`)).toMatchObject({ unsubscribed: 1 })
    // Again: still 200, nothing new recorded.
    expect((await hit('POST', s.unsubscribe, { body: 'List-Unsubscribe=One-Click' })).status).toBe(200)
    expect(await eventsOf(s.message.id, 'contact.unsubscribed')).toHaveLength(1)
  })

  test('the unsubscribe pages, previews and sent mail name the sender of record (client.footer)', async () => {
    const s = await sentMessage('hal@example.com')
    const footer = { company: 'Acme Ltd', postal_address: '1 Main St, Springfield' }
    expect((await t.call('PUT', `/api/v1/clients/${s.clientId}/sending`, { body: { footer } })).status).toBe(
      200,
    )
    const ask = await (await hit('GET', s.unsubscribe)).text()
    expect(ask).toContain('Stop receiving these messages from Acme Ltd?')
    expect(ask).toContain('1 Main St, Springfield')
    const done = await (await hit('POST', s.unsubscribe, { body: '' })).text()
    expect(done).toContain('Acme Ltd · 1 Main St, Springfield')
    const body_html = '<p>{{ client.footer.company }}, {{ client.footer.postal_address }}</p>'
    const tpl = (
      await t.call('POST', '/api/v1/templates', { key: s.key, body: { name: 'F', subject: 'Hi', body_html } })
    ).body.data
    const p = (await t.call('POST', `/api/v1/templates/${tpl.id}/preview`, { key: s.key, body: {} })).body
      .data
    expect(p.body_html).toContain('Acme Ltd, 1 Main St, Springfield')
    const post = async (path: string, body?: unknown) =>
      (await t.call('POST', path, { key: s.key, body })).body.data
    const list = await post('/api/v1/lists', { name: 'F' })
    await post('/api/v1/contacts', { email: 'ida@example.com', list_ids: [list.id] })
    const c = await post('/api/v1/campaigns', { name: 'F', list_id: list.id, template_id: tpl.id })
    await post(`/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    await eventually(async () => expect((await s.get(`/api/v1/campaigns/${c.id}`)).status).toBe('sent'))
    const [m] = await s.get(`/api/v1/messages?campaign_id=${c.id}`)
    expect((await s.get(`/api/v1/messages/${m.id}`)).body_html).toContain('Acme Ltd, 1 Main St, Springfield')
  })

  test('the page’s confirm button (a POST without the one-click body) unsubscribes too', async () => {
    const s = await sentMessage('fay@example.com')
    const r = await hit('POST', s.unsubscribe, { body: '' })
    expect(r.status).toBe(200)
    expect(await r.text()).toContain('You are unsubscribed')
    expect((await eventsOf(s.message.id, 'contact.unsubscribed'))[0]).toMatchObject({
      source: 'unsubscribe_page',
    })
  })

  test('a template preview’s link opens a page that says so; a preview token never unsubscribes, a real one still does', async () => {
    const s = await sentMessage('gus@example.com')
    const tpl = (
      await t.call('POST', '/api/v1/templates', {
        key: s.key,
        body: { name: 'P', subject: 'Hi', body_html: '<a href="{{ unsubscribe_url }}">Unsubscribe</a>' },
      })
    ).body.data
    const p = (await t.call('POST', `/api/v1/templates/${tpl.id}/preview`, { key: s.key, body: {} })).body
      .data
    const previewPath = new URL(/href="([^"]+)"/.exec(p.body_html)![1]!).pathname
    expect(previewPath).toMatch(/^\/u\/[\w-]+\.[\w-]+$/)

    const page = await hit('GET', previewPath)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html).toContain('preview')
    expect(html).toContain('nothing was changed')
    expect(html).not.toContain('<form')
    for (const body of ['List-Unsubscribe=One-Click', '']) {
      const r = await hit('POST', previewPath, { body })
      expect(r.status).toBe(200)
      expect(await r.text()).toContain('nothing was changed')
    }

    // Preview tokens cannot be mistaken for real ones, nor real ones for previews.
    const key = trackingKey(t.ctx.secretKey)
    const real = s.unsubscribe.slice('/u/'.length)
    const [realPayload, realSig] = real.split('.') as [string, string]
    const asPreview = Buffer.from(realPayload, 'base64url')
    asPreview[0] = 4 // the real token's claims relabelled as a preview: the signature no longer fits
    const previewAsReal = Buffer.from(previewPath.slice('/u/'.length).split('.')[0]!, 'base64url')
    previewAsReal[0] = 3
    const forged = [
      `${asPreview.toString('base64url')}.${realSig}`,
      `${previewAsReal.toString('base64url')}.${previewPath.split('.')[1]}`,
      encodeLinkToken(key, s.clientId, 'preview_unsubscribe', s.message.id), // a preview kind for a client
      encodeLinkToken(key, PREVIEW_SCOPE, 'unsubscribe', s.message.id), // a real kind for the preview scope
      encodePreviewToken(Buffer.alloc(32, 7), tpl.id), // another instance's key
    ]
    for (const token of forged) {
      expect((await hit('GET', `/u/${token}`)).status, token).toBe(404)
      expect((await hit('POST', `/u/${token}`, { body: 'List-Unsubscribe=One-Click' })).status, token).toBe(
        404,
      )
    }
    // A preview token naming the sent message itself is still only a preview.
    const aimed = encodePreviewToken(key, s.message.id)
    expect(await (await hit('POST', `/u/${aimed}`, { body: 'List-Unsubscribe=One-Click' })).text()).toContain(
      'nothing was changed',
    )
    expect((await s.get(`/api/v1/contacts/${s.contact.id}`)).status).toBe('subscribed')
    expect(await eventsOf(s.message.id, 'contact.unsubscribed')).toHaveLength(0)

    // The real token still unsubscribes.
    expect((await hit('POST', s.unsubscribe, { body: 'List-Unsubscribe=One-Click' })).status).toBe(200)
    expect((await s.get(`/api/v1/contacts/${s.contact.id}`)).status).toBe('unsubscribed')
    expect(await eventsOf(s.message.id, 'contact.unsubscribed')).toHaveLength(1)
  })
})
