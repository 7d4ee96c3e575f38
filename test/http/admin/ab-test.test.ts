// An A/B campaign's page: the variants side by side with their figures, the countdown to the
// decision, an operator choosing the winner early, then the winner marked. Driven in-process on
// a clock the test moves.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { createTestApp } from '../../helpers/app'
import { campaignTenant } from '../../helpers/campaign'
import { allChannels, recordingProvider } from '../../helpers/sender'
import { lazyOwner, PORTAL_ENV } from './portal-helpers'

setDefaultTimeout(60_000)

const clock = { t: Date.parse('2026-11-23T09:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ clock, env: PORTAL_ENV })
const owner = lazyOwner(t)
const provider = recordingProvider()
const drain = () => createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) }).drain()

describe('an A/B campaign in the portal', () => {
  test('variants side by side, the countdown, an early pick, the winner marked', async () => {
    const s = await campaignTenant(
      t,
      Array.from({ length: 20 }, (_, i) => `p${i}@customer.example`),
      {
        variants: [
          { name: 'Short', subject: 'Sale' },
          { name: 'Long', subject: 'Our biggest sale of the year' },
        ],
        ab_test: { test_share: 0.5, metric: 'click_rate', duration: 'PT2H' },
      },
    )
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await drain()
    clock.t += 30 * 60_000
    const b = await owner()
    await b.post('/admin/workspace', { workspace: s.clientId, next: '/admin' })
    const page = await b.get(`/admin/campaigns/${s.campaign.id}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('50 % of the audience tests 2 variants; the best click rate after PT2H')
    expect(page.text).toMatch(/id="ab-countdown">The winner is chosen [^<]+ \(in 90 min\)\./)
    const section = /<section id="campaign-ab"[\s\S]*?<\/section>/.exec(page.text)![0]
    const rows = [...section.matchAll(/<th scope="row">([^<]+)<\/th>\s*<td>([^<]+)<\/td>\s*<td>(\d+)<\/td>/g)]
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual([
      ['Short', 'Sale', '5'],
      ['Long', 'Our biggest sale of the year', '5'],
    ])

    const picked = await b.post(`/admin/campaigns/${s.campaign.id}/winner`, { variant: 'Long' })
    expect(picked.status).toBe(303)
    await drain()
    const after = await b.get(`/admin/campaigns/${s.campaign.id}`)
    expect(after.text).toContain('<strong>Long won</strong> (chosen by an operator')
    expect(after.text).toMatch(/<th scope="row">Long<\/th>[\s\S]*?<strong>Winner<\/strong>/)
    expect(after.text).not.toContain('Choose Short now')
    expect(await s.status()).toBe('sent')
  })
})
