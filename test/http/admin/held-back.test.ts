// A campaign held back by a sending limit says so in the portal: its page names the limit (the
// warm-up of its sender's domain), how many messages wait and until when; the dashboard says
// that messages of a client wait. Driven in-process, on a clock the test moves.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { domains } from '../../../src/db/schema'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import { createTestApp } from '../../helpers/app'
import { campaignTenant } from '../../helpers/campaign'
import { allChannels, recordingProvider } from '../../helpers/sender'
import { lazyOwner, PORTAL_ENV } from './portal-helpers'

setDefaultTimeout(60_000)

const clock = { t: Date.parse('2026-11-23T22:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ clock, env: PORTAL_ENV })
const owner = lazyOwner(t)
// Signs with the domain's key for real inboxes (as SMTP does): its mail warms the domain up.
const provider = recordingProvider('smtp')
;(provider as { capabilities: unknown }).capabilities = {
  storesContent: false,
  reportsDelivery: false,
  needsVerifiedSender: true,
}
const drain = () => createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) }).drain()

describe('a campaign held back by warm-up', () => {
  test('its page and the dashboard say why it waits and until when; then nothing once all is sent', async () => {
    const s = await campaignTenant(
      t,
      Array.from({ length: 60 }, (_, i) => `p${i}@customer.example`),
    )
    const dom = await s.call('POST', '/api/v1/domains', { domain: 'news.acme.example' })
    await t.ctx.db
      .update(domains)
      .set({ dkimVerified: true, spfVerified: true, status: 'verified' })
      .where(eq(domains.id, dom.id))
    const sender = await s.call('POST', '/api/v1/senders', {
      from_email: 'hi@news.acme.example',
      from_name: 'Acme',
    })
    await s.call('PATCH', `/api/v1/campaigns/${s.campaign.id}`, { sender_id: sender.id })
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
    await drain()

    const b = await owner()
    await b.post('/admin/workspace', { workspace: s.clientId, next: '/admin' })
    const page = await b.get(`/admin/campaigns/${s.campaign.id}`)
    expect(page.status).toBe(200)
    const held = /<p id="campaign-held"[^>]*>([^<]*)<\/p>/.exec(page.text)?.[1]
    expect(held).toBe(
      'Held back by warm-up of news.acme.example: 10 message(s) wait until 24 Nov 2026, 00:00 UTC.',
    )
    const dashboard = await b.get('/admin')
    expect(dashboard.text).toContain('Held back: 10 message(s) of 1 campaign(s) wait for a sending limit')
    expect(dashboard.text).toContain('sending, held back by warm-up: 10 wait until 24 Nov 2026, 00:00 UTC')

    // The next UTC day's cap lets the rest go: nothing is held any more.
    clock.t = Date.parse('2026-11-24T00:00:00.000Z')
    await drain()
    expect(await s.status()).toBe('sent')
    expect((await b.get(`/admin/campaigns/${s.campaign.id}`)).text).not.toContain('campaign-held')
    expect((await b.get('/admin')).text).not.toContain('held-back')
  })
})
