// The analytics and deliverability pages of the portal, driven in-process like a browser without
// JavaScript: the funnel and the trend (server-rendered SVG and its table) with their filters and
// per-field messages, the score with factors, advice, alert banner, domains, warm-up and the
// culprit campaign, and the agency overview across clients.
import { describe, expect, test } from 'bun:test'
import type { RollupDeltas } from '../../../src/db/rollups'
import { checkSendingHealth } from '../../../src/services/deliverability/alerts'
import { createTestApp } from '../../helpers/app'
import { countEmail } from '../../helpers/campaign'
import { PORTAL_ENV, signIn } from './portal-helpers'

// Real time: portal sessions and CSRF tokens are checked against it. The history is placed
// relative to now, whole hours back so each lands in one hour bucket.
const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.now() - (Date.now() % HOUR)
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13)
const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const other = await t.client('Globex')

const add = (clientId: string, at: number, d: RollupDeltas, campaignId: string | null = null) =>
  countEmail(t, clientId, at, d, campaignId)

async function api(method: string, path: string, body?: unknown) {
  const r = await t.call(method, path, { key, body })
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}

describe('analytics and deliverability pages', async () => {
  const list = await api('POST', '/api/v1/lists', { name: 'Fair leads' })
  const camp = await api('POST', '/api/v1/campaigns', {
    name: 'Spring <sale>',
    list_id: list.id,
    subject: 'S',
    body_html: '<p>x</p>',
  })
  await add(
    t.defaultClientId,
    NOW - 2 * DAY,
    {
      sent: 1000,
      delivered: 940,
      opened: 300,
      machine_opened: 50,
      clicked: 40,
      replied: 3,
      bounced: 60,
      complained: 2,
    },
    camp.id,
  )
  await add(t.defaultClientId, NOW - DAY, { sent: 200, delivered: 200, opened: 80, clicked: 9 })
  await checkSendingHealth(t.ctx, t.defaultClientId, NOW)
  await add(other, NOW - 3 * DAY, { sent: 500, delivered: 500, opened: 200 })
  const owner = await signIn(t)

  test('analytics: the funnel and the trend with their numbers', async () => {
    const r = await owner.get('/admin/analytics')
    expect(r.status).toBe(200)
    expect(r.text).toContain('<h2 id="funnel-h">Funnel</h2>')
    // sent 1,200; delivered 1,140; opened 380; clicked 49; replied 3.
    expect(r.text).toContain('<td>sent</td><td>1,200</td>')
    expect(r.text).toContain('<td>opened</td><td>380</td><td>33.3 %</td><td>31.7 %</td>')
    expect(r.text).toContain('50 machine opens')
    expect(r.text).toContain('<svg class="chart"')
    expect(r.text).toContain(`<title>${date(NOW - 2 * DAY)}: 1,000</title>`)
    expect(r.text).toContain(`<tr><td>${date(NOW - DAY)}</td><td>200</td></tr>`)
    expect(r.text).toContain('Spring &lt;sale&gt;')
  })

  test('analytics: filters, and a bad one shown next to its field', async () => {
    const r = await owner.get(
      `/admin/analytics?from=${date(NOW - 2 * DAY)}&to=${date(NOW - 2 * DAY)}&metric=opened&interval=hour&campaign_id=${camp.id}&timezone=UTC`,
    )
    expect(r.status).toBe(200)
    expect(r.text).toContain('<td>sent</td><td>1,000</td>')
    expect(r.text).toContain(`<title>${hour(NOW - 2 * DAY)}:00: 300</title>`)
    expect(r.text).toContain('Opened by hour')
    const bad = await owner.get('/admin/analytics?timezone=Mars%2FOlympus')
    expect(bad.status).toBe(200)
    expect(bad.text).toContain('role="alert"')
    expect(bad.text).toContain('id="timezone-error"')
    expect(bad.text).toContain('must be an IANA time zone')
  })

  test('deliverability: score, advice, alert banner, culprit campaign', async () => {
    const r = await owner.get('/admin/deliverability')
    expect(r.status).toBe(200)
    expect(r.text).toContain('Deliverability: Default workspace')
    // 60 bounces in 1,200 sends: 5.0 %, and the alert over the last 1,000+ sends.
    expect(r.text).toContain('Bounce rate 5.0 % over 30 days (60 of 1,200 sends)')
    expect(r.text).toMatch(
      /<div class="flash flash-error" role="alert">Bounce rate 5.0 % over the last 1,200 sends/,
    )
    expect(r.text).toContain(
      'campaign &#34;Spring &lt;sale&gt;&#34; (6.0 % of 1,000 sends; list &#34;Fair leads&#34;',
    )
    expect(r.text).toContain('No sending domain yet')
    expect(r.text).toContain('No domain is warming up')
  })

  test('the agency overview lists every client with its score', async () => {
    const all = await owner.post('/admin/workspace', { workspace: '', next: '/admin/deliverability' })
    expect(all.status).toBe(303)
    const r = await owner.get('/admin/deliverability')
    expect(r.status).toBe(200)
    expect(r.text).toContain('Every client')
    expect(r.text).toContain(`href="/admin/deliverability?client_id=${other}">Globex</a>`)
    expect(r.text).toContain('aria-label="500 sent in 30 days"')
    const one = await owner.get(`/admin/deliverability?client_id=${other}`)
    expect(one.text).toContain('Deliverability: Globex')
    expect(one.text).toContain('<a href="/admin/deliverability">Every client</a>')
    // Analytics need a workspace.
    expect((await owner.get('/admin/analytics')).text).toContain('Choose a workspace in the header')
  })
})
