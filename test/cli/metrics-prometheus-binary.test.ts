import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { useBinary } from '../helpers/binary'
import { importedList, keyedServers } from '../helpers/binary-api'
import { startPrometheus } from '../helpers/prometheus'
import { until } from '../helpers/receiver'

// A real Prometheus scrapes the compiled binary while a small campaign is sent in capture mode;
// its query API then returns the request counters (by route template) and the message counters.

const bin = useBinary('herald-prometheus-binary-')
const serve = keyedServers(bin, `hrld_${'Prom0Metrics1Key2'.repeat(3)}`)
const RECIPIENTS = 20

test('Prometheus scrapes /metrics: request and message counters after a campaign', async () => {
  const h = await serve(join(bin.work, 'data'), { HERALD_EMAIL_PROVIDER: 'capture' })
  const prometheus = await startPrometheus([h.base.replace('http://', '')])

  const { q, list } = await importedList(h.call, RECIPIENTS)
  const campaign = await h.call('POST', `/api/v1/campaigns${q}`, {
    name: 'Scraped',
    list_id: list.id,
    subject: 'Hello',
    body_html: '<p>Hello</p>',
  })
  await h.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  await until(
    async () => (await h.call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
    20_000,
    'sent',
  )

  // What Prometheus holds once a scrape after the send has landed.
  const value = async (promql: string) => (await prometheus.query(promql))[0]?.value ?? 0
  await until(
    async () =>
      (await value('sum(herald_messages_total{source="campaign",channel="email",status="sent"})')) ===
      RECIPIENTS,
    20_000,
    'message counter scraped',
  )
  expect(await value('herald_campaign_messages{channel="email",status="sent"}')).toBe(RECIPIENTS)
  expect(await value('herald_import_rows_total{outcome="inserted"}')).toBe(RECIPIENTS)
  expect(await value('herald_queue_depth{source="campaign"}')).toBe(0)
  // Requests by route template: the campaign's polling went to one series, not one per id.
  const polled = await prometheus.query(
    'herald_http_requests_total{method="GET",route="/api/v1/campaigns/:id",status="200"}',
  )
  expect(polled).toHaveLength(1)
  expect(polled[0]!.value).toBeGreaterThan(0)
  const routes = (await prometheus.query('herald_http_requests_total')).map((s) => s.metric.route!)
  for (const route of routes) expect(route).not.toContain(campaign.id)
  // Its own scrapes are counted too (seen from the next scrape on).
  await until(
    async () => (await value('herald_http_requests_total{route="/metrics",status="200"}')) > 0,
    20_000,
    'scrapes counted',
  )
  expect(await value('up{job="herald"}')).toBe(1)
  expect(await value('herald_process_resident_memory_bytes')).toBeGreaterThan(0)
}, 120_000)
