// The portal's side of local-time delivery: the form takes "Send at local time", and the
// campaign's page shows the local time and the next zones due with how many wait for each.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { startDueCampaigns } from '../../../src/services/campaigns/launch'
import { createTestApp } from '../../helpers/app'
import { tenant } from '../../helpers/campaign'
import { allChannels, recordingProvider } from '../../helpers/sender'
import { lazyOwner, PORTAL_ENV } from './portal-helpers'

setDefaultTimeout(60_000)

const clock = { t: Date.parse('2026-03-07T12:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ clock, env: PORTAL_ENV })
const owner = lazyOwner(t)
const drain = () => createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) }).drain()

describe('a local-time campaign in the portal', () => {
  test('created with a local time; its page lists the next zones due and their counts', async () => {
    const s = await tenant(t)
    const list = await s.call('POST', '/api/v1/lists', { name: 'Everyone' })
    const zones = ['Asia/Tokyo', 'Asia/Tokyo', 'Europe/Berlin', 'America/New_York']
    for (const [i, timezone] of zones.entries())
      await s.call('POST', '/api/v1/contacts', { email: `p${i}@x.example`, timezone, list_ids: [list.id] })

    const b = await owner()
    await b.post('/admin/workspace', { workspace: s.clientId, next: '/admin' })
    const form = await b.get('/admin/campaigns/new')
    expect(form.text).toContain('name="send_at_local" type="time"')
    const fields = { name: 'Morning', audience: `list:${list.id}`, channel: 'email', body_text: 'Hello' }
    const refused = await b.post('/admin/campaigns', { ...fields, send_at_local: '25:00' })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('id="send_at_local-error"')
    const created = await b.post('/admin/campaigns', {
      ...fields,
      subject: 'Morning',
      send_at_local: '09:00',
    })
    expect(created.status).toBe(303)
    const id = created.location!.split('/').at(-1)!
    expect((await b.get(`/admin/campaigns/${id}/edit`)).text).toContain('value="09:00"')

    await b.post(`/admin/campaigns/${id}/launch`, { confirm: 'true' })
    await drain()
    const page = (await b.get(`/admin/campaigns/${id}`)).text
    expect(page).toContain('local time 09:00')
    expect(page).toContain('Local time 09:00')
    const rows = [
      ...page.matchAll(
        /<tr><td>([^<]*) <small>\(([^)]*)\)<\/small><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map((m) => m.slice(1))
    // Launched at 12:00 UTC: New York's 09:00 is still ahead today, the others' tomorrow.
    expect(rows).toEqual([
      ['America/New_York', 'UTC-05:00', '09:00', '2026-03-07 14:00', '1'],
      ['Asia/Tokyo', 'UTC+09:00', '09:00', '2026-03-08 00:00', '2'],
      ['Europe/Berlin', 'UTC+01:00', '09:00', '2026-03-08 08:00', '1'],
    ])

    // New York's hour: its row goes, the others remain.
    clock.t = Date.parse('2026-03-07T14:00:00.000Z')
    await startDueCampaigns(t.ctx)
    await drain()
    const later = (await b.get(`/admin/campaigns/${id}`)).text
    expect(later).not.toContain('America/New_York')
    expect(later).toContain('Asia/Tokyo')
    expect(later).toContain('<strong id="campaign-status">sending</strong>')
  })
})
