import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp, type TestApp } from '../helpers/app'
import { campaignTenant } from '../helpers/campaign'
import { rowOf, rowsOf } from '../helpers/raw-sql'
import { allChannels, recordingProvider } from '../helpers/sender'

// A client's sending profile sets its own rules: its hourly cap holds its sends through the
// worker, and only its own; its own SMTP account makes its mail real, so its sender must be verified.

const clock = { t: Date.parse('2026-11-23T10:00:00.000Z'), now: () => clock.t }
const t = await createTestApp({ clock })

const counts = async (app: TestApp, campaignId: string) =>
  Object.fromEntries(
    (
      await rowsOf<{ status: string; n: number }>(
        app,
        sql`SELECT status, CAST(count(*) AS INTEGER) AS n FROM messages WHERE campaign_id = ${campaignId} GROUP BY status`,
      )
    ).map((r) => [r.status, r.n]),
  )

test("a profile's hourly cap defers its client's sends to the next hour, not another client's", async () => {
  const emails = (p: string) => Array.from({ length: 5 }, (_, i) => `${p}${i}@customer.example`)
  const capped = await campaignTenant(t, emails('c'))
  const free = await campaignTenant(t, emails('f'))
  const put = await t.call('PUT', `/api/v1/clients/${capped.clientId}/sending`, {
    body: { email: { provider: 'inherit', hourly_cap: 2 } },
  })
  expect(put.status).toBe(200)
  for (const s of [capped, free])
    await s.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { confirm: true })
  await createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider('capture')) }).drain()
  expect(await counts(t, capped.campaign.id)).toEqual({ delivered: 2, queued: 3 })
  expect(await counts(t, free.campaign.id)).toEqual({ delivered: 5 })
  const at = (await rowOf<{ at: number }>(
    t,
    sql`SELECT CAST(min(next_attempt_at) AS DOUBLE PRECISION) AS at FROM messages WHERE campaign_id = ${capped.campaign.id} AND status = 'queued'`,
  ))!.at
  expect(new Date(at).toISOString()).toBe('2026-11-23T11:00:00.000Z')
})

test("a client with its own SMTP account needs a verified sender, though the instance's is capture", async () => {
  const own = await campaignTenant(t, ['o@customer.example'])
  const other = await campaignTenant(t, ['p@customer.example'])
  for (const s of [own, other])
    await s.call('POST', '/api/v1/senders', { from_email: 'hi@unverified.example', from_name: 'Hi' })
  const put = await t.call('PUT', `/api/v1/clients/${own.clientId}/sending`, {
    body: { email: { provider: 'smtp', smtp_url: 'smtp://127.0.0.1:9' } },
  })
  expect(put.status).toBe(200)
  const launch = (s: typeof own) =>
    t.call('POST', `/api/v1/campaigns/${s.campaign.id}/launch`, { key: s.key, body: { confirm: true } })
  const refused = await launch(own)
  expect(refused.status).toBe(409)
  expect(refused.body.error.message).toContain('no verified sender')
  expect((await launch(other)).status).toBe(200)
})
