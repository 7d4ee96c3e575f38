import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { SQL } from 'bun'
import { useBinary } from '../helpers/binary'
import { keyedServers, sendingAudience, smtpWorld } from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'
import { until } from '../helpers/receiver'

// Two `herald serve` processes on one empty PostgreSQL database, started together, with one
// secret key, as two machines behind a load balancer: requests go to both alternately. What this
// shows: one bootstrap, what one process writes the other reads, claims and job slots shared.
// Limits: shared-limits.test.ts; webhook order: webhook-order.test.ts; crashes and restarts:
// kill-and-restart.test.ts.

setDefaultTimeout(120_000)
const bin = useBinary('herald-multi-')
const serve = keyedServers(bin, `hrld_${'Multi0Proc1Key2'.repeat(3)}`)

test('two processes on one database: one bootstrap, either answers, a campaign reaches each recipient once', async () => {
  const url = await blankDatabase()
  const { dns, sink, env } = await smtpWorld()
  const shared = { ...env, HERALD_DATABASE_URL: url, HERALD_SECRET_KEY: randomBytes(32).toString('hex') }
  const [a, b] = await Promise.all([serve(join(bin.work, 'a'), shared), serve(join(bin.work, 'b'), shared)])
  const either = [a, b]

  // Both migrated and bootstrapped at once: one workspace, seen the same from both.
  for (const p of either)
    expect(((await p.call('GET', '/api/v1/clients')) as { name: string }[]).map((c) => c.name)).toEqual([
      'Default workspace',
    ])

  const RECIPIENTS = 600
  const { q, list } = await sendingAudience(a.call, dns, {
    domain: 'multi.example',
    from: 'news',
    fromName: 'News',
    contacts: RECIPIENTS,
    prefix: 'm',
    importMs: 30_000,
  })
  // What one process wrote, the other reads, and a page cursor from one works on the other.
  for (let i = 0; i < 4; i++) {
    const p = either[i % 2]!
    await p.call('POST', `/api/v1/contacts${q}`, { email: `alt${i}@example.com` })
  }
  const page1 = await a.body('GET', `/api/v1/contacts${q}&limit=2`)
  const page2 = await b.body(
    'GET',
    `/api/v1/contacts${q}&limit=2&cursor=${encodeURIComponent(page1.pagination.next_cursor)}`,
  )
  expect(page2.data).toHaveLength(2)
  expect(page2.data[0].id).not.toBe(page1.data[0].id)

  const campaign = await b.call('POST', `/api/v1/campaigns${q}`, {
    name: 'Both',
    list_id: list.id,
    subject: 'Hello {{ contact.email }}',
    body_html: '<p>Hi</p>',
  })
  await a.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  await until(
    async () => (await b.call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
    60_000,
    'sent',
  )
  const to = sink.received.map((m) => m.rcptTo[0]!)
  expect(new Set(to).size).toBe(RECIPIENTS)
  expect(to).toHaveLength(RECIPIENTS) // no process sent what the other had claimed

  // The per-second job fired in both processes; each slot ran in one of them.
  const db = new SQL({ url, max: 1 })
  try {
    const [slot] = (await db`SELECT slot_at FROM job_slots WHERE name = 'campaigns.start-scheduled'`) as {
      slot_at: string
    }[]
    expect(Math.abs(Date.now() - Number(slot!.slot_at))).toBeLessThan(10_000)
  } finally {
    await db.close()
  }
})
