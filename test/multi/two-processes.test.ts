import { expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { SQL } from 'bun'
import { useBinary } from '../helpers/binary'
import { type ApiCall, keyedServers, sendingAudience, smtpWorld } from '../helpers/binary-api'
import type { TestDnsServer } from '../helpers/dns-server'
import { blankDatabase } from '../helpers/postgres'
import { until } from '../helpers/receiver'

// Two `herald serve` processes on one empty PostgreSQL database, started together, with one
// secret key, as two machines behind a load balancer: requests go to both alternately. What this
// shows: one bootstrap, what one process writes the other reads, claims and job slots shared, a
// sequence stepped by both with each step once.
// Limits: shared-limits.test.ts; webhook order: webhook-order.test.ts; crashes and restarts:
// kill-and-restart.test.ts.

setDefaultTimeout(120_000)
const bin = useBinary('herald-multi-')
const serve = keyedServers(bin, `hrld_${'Multi0Proc1Key2'.repeat(3)}`)

/** Two processes started together on a new empty database, with one secret key, sending to one sink. */
async function twoProcesses() {
  const url = await blankDatabase()
  const { dns, sink, env } = await smtpWorld()
  const shared = { ...env, HERALD_DATABASE_URL: url, HERALD_SECRET_KEY: randomBytes(32).toString('hex') }
  const [a, b] = await Promise.all([serve(join(bin.work, 'a'), shared), serve(join(bin.work, 'b'), shared)])
  return { url, dns, sink, a, b }
}

/** A verified sending domain on `p`'s first workspace, and a list of `contacts` imported contacts. */
const audience = (p: { call: ApiCall }, dns: TestDnsServer, domain: string, contacts: number) =>
  sendingAudience(p.call, dns, {
    domain,
    from: 'news',
    fromName: 'News',
    contacts,
    prefix: 'm',
    importMs: 30_000,
  })

test('two processes on one database: one bootstrap, either answers, a campaign reaches each recipient once', async () => {
  const { url, dns, sink, a, b } = await twoProcesses()
  const either = [a, b]

  // Both migrated and bootstrapped at once: one workspace, seen the same from both.
  for (const p of either)
    expect(((await p.call('GET', '/api/v1/clients')) as { name: string }[]).map((c) => c.name)).toEqual([
      'Default workspace',
    ])

  const RECIPIENTS = 600
  const { q, list } = await audience(a, dns, 'multi.example', RECIPIENTS)
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

test('two processes step one sequence: each contact gets the step once', async () => {
  const { url, dns, sink, a, b } = await twoProcesses()
  const CONTACTS = 400
  const { q, list } = await audience(a, dns, 'steps.example', CONTACTS)
  const sequence = await b.call('POST', `/api/v1/sequences${q}`, {
    name: 'Both step',
    steps: [{ subject: 'Hello', body_text: 'Hi {{ contact.email }}' }],
  })
  await a.call('POST', `/api/v1/sequences/${sequence.id}/activate`)
  // Both processes' flow workers are woken (one directly, the other through the database).
  expect(
    (await b.call('POST', `/api/v1/sequences/${sequence.id}/enroll`, { list_id: list.id })).enrolled,
  ).toBe(CONTACTS)
  const db = new SQL({ url, max: 1 })
  try {
    // Done: every run has taken its one step and left, and nothing is left to send.
    await until(
      async () => {
        const [r] = (await db`SELECT
            (SELECT count(*)::int FROM flow_runs WHERE flow_id = ${sequence.id}) AS runs,
            (SELECT count(*)::int FROM messages WHERE source_id = ${sequence.id} AND status IN ('queued', 'sending')) AS open`) as {
          runs: number
          open: number
        }[]
        return r!.runs === 0 && r!.open === 0
      },
      60_000,
      'every run stepped and its message sent',
    )
    const [m] = (await db`SELECT count(*)::int AS n, count(DISTINCT contact_id)::int AS contacts
      FROM messages WHERE source_id = ${sequence.id}`) as { n: number; contacts: number }[]
    expect(m).toEqual({ n: CONTACTS, contacts: CONTACTS })
    const to = sink.received.map((r) => r.rcptTo[0]!)
    expect(to).toHaveLength(CONTACTS)
    expect(new Set(to).size).toBe(CONTACTS)
  } finally {
    await db.close()
  }
})
