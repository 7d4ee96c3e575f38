// Local-time delivery bar, `bun run test/bench/local-time.ts [--recipients N]` (default 100,000;
// also run by `bun run bench`): a campaign at 09:00 in each recipient's zone over 24 real zones
// (some contacts without a zone of their own, so the client's), on the day Europe springs forward.
// A simulated day and a half on an injected clock drives the real scheduler job and send worker
// with the capture provider, in process. The clock jumps to each next due time plus one second
// (the scheduler's tick; the running send worker polls every 100 ms) and then runs with the real
// clock while the worker sends, so lateness includes the sending itself.
// Bar: every recipient's message leaves within 60 s after their 09:00 (max of sent_at − due), and
// none before. Also: how long the audience copy took (the snapshot, with each due time).
// Prints a Markdown table and one JSON line; exit code 1 when the bar is missed.

import { parseArgs } from 'node:util'
import { wallClock } from '../../src/lib/zoned-time'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { startDueCampaigns } from '../../src/services/campaigns/launch'
import { firstDueAt } from '../../src/services/campaigns/local-due'
import { createTestApp } from '../helpers/app'
import { captureProviders, insertListContacts, keepAlive } from './in-process'
import { BenchError, fmt, progress, runBench } from './lib'

const BAR_MS = 60_000
/** What the running service adds before it notices a due time: the scheduler job's one-second tick. */
const TICK_MS = 1_000

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { recipients: { type: 'string', default: '100000' } },
  strict: true,
})
const N = Number(values.recipients)
if (!Number.isInteger(N) || N < 1000) throw new BenchError('--recipients must be a whole number >= 1000')

// 24 zones, weighted roughly like a list with most people in North America and Europe; a share
// with no zone of their own (null) falls back to the client's, New York.
const ZONES: [string | null, number][] = [
  ['America/New_York', 14],
  ['America/Chicago', 9],
  ['America/Denver', 4],
  ['America/Los_Angeles', 9],
  ['Europe/London', 8],
  ['Europe/Berlin', 7],
  ['Europe/Paris', 6],
  ['Europe/Madrid', 3],
  ['Asia/Kolkata', 5],
  ['Asia/Tokyo', 4],
  ['Australia/Sydney', 3],
  ['America/Sao_Paulo', 3],
  ['Asia/Singapore', 2],
  ['Asia/Shanghai', 2],
  ['Asia/Dubai', 2],
  ['Europe/Athens', 2],
  ['Africa/Lagos', 1],
  ['Africa/Nairobi', 1],
  ['America/Halifax', 1],
  ['Pacific/Auckland', 1],
  ['Asia/Kathmandu', 1],
  ['Asia/Bangkok', 1],
  ['Pacific/Honolulu', 1],
  ['America/Mexico_City', 2],
  [null, 8],
]
const WEIGHT = ZONES.reduce((s, [, w]) => s + w, 0)
const zoneAt = (i: number) => {
  let k = (i * 7919) % WEIGHT
  for (const [zone, w] of ZONES) {
    if (k < w) return zone
    k -= w
  }
  return null
}

/** The simulated clock: set to an instant, it then runs with real time until set again. */
function simulatedClock(start: number) {
  let base = start
  let realAt = performance.now()
  return {
    now: () => Math.floor(base + (performance.now() - realAt)),
    set(t: number) {
      base = t
      realAt = performance.now()
    },
  }
}

async function main(): Promise<boolean> {
  const release = keepAlive()
  // scheduled_at gives the day: 2026-03-29 in each zone as it reads 12:00 UTC (Auckland's 30th),
  // the morning Europe moves to summer time. The launch is a day before.
  const clock = simulatedClock(Date.parse('2026-03-28T12:00:00.000Z'))
  const t = await createTestApp({ clock })
  const clientId = await t.client('Around the world')
  await t.ctx.sqlite.run('UPDATE clients SET timezone = ? WHERE id = ?', ['America/New_York', clientId])
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await t.call(method, path, { key, body })
    if (r.status !== 200) throw new BenchError(`${method} ${path} → ${r.status} ${r.text}`)
    return r.body.data
  }
  const list = await call('POST', '/api/v1/lists', { name: 'Everyone' })
  progress(
    `inserting ${fmt(N)} contacts over ${ZONES.length - 1} zones (${ZONES.at(-1)![1]}/${WEIGHT} without one)`,
  )
  await insertListContacts(t, clientId, list.id, N, clock.now(), zoneAt)
  const { capture, providers } = captureProviders(t)
  const worker = createSendWorker(t.ctx, sendDeps, { providers })

  const c = await call('POST', '/api/v1/campaigns', {
    name: 'Good morning',
    list_id: list.id,
    subject: 'Good morning {{ contact.first_name }}',
    body_html: `<html><body><h1>Hello {{ contact.first_name }}</h1>${'<p>News of the week, with a <a href="https://example.com/x">link</a>.</p>'.repeat(10)}<a href="{{ unsubscribe_url }}">unsubscribe</a></body></html>`,
    scheduled_at: '2026-03-29T12:00:00Z',
    send_at_local: '09:00',
  })
  const began = performance.now()
  const launched = await call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
  if (launched.status !== 'scheduled') throw new BenchError(`launched as ${launched.status}`)
  await worker.drain()
  const snapshotMs = performance.now() - began
  const copied = await call('GET', `/api/v1/campaigns/${c.id}`)
  if (copied.status !== 'scheduled' || copied.total_recipients !== N)
    throw new BenchError(`after the copy: ${copied.status}, ${copied.total_recipients} recipients`)
  progress(`audience copied with each due time in ${fmt(snapshotMs)} ms; first due ${copied.scheduled_at}`)

  // Each due time as queued, and a check of it against Intl: 09:00 on the local date of scheduled_at.
  const due = new Map<number, number>()
  const zoneOf = new Map<number, string>()
  for (const r of t.ctx.sqlite
    .query<{ seq: number; at: number; tz: string | null }, [string]>(
      'SELECT m.seq, m.next_attempt_at AS at, c.timezone AS tz FROM messages m JOIN contacts c ON c.id = m.contact_id WHERE m.campaign_id = ?1',
    )
    .iterate(c.id)) {
    due.set(r.seq, r.at)
    zoneOf.set(r.seq, r.tz ?? 'America/New_York')
  }
  const checked = new Set<string>()
  for (const [seq, at] of due) {
    const tz = zoneOf.get(seq)!
    const key = `${tz}|${at}`
    if (checked.has(key)) continue
    checked.add(key)
    const local = new Date(wallClock(at, tz)).toISOString().slice(0, 16)
    const day = new Date(wallClock(Date.parse('2026-03-29T12:00:00Z'), tz)).toISOString().slice(0, 10)
    if (local !== `${day}T09:00`)
      throw new BenchError(`${tz}: due ${new Date(at).toISOString()} reads ${local}`)
  }
  const instants = new Set(due.values()).size
  progress(
    `${fmt(due.size)} recipients due at ${instants} instants (${checked.size} zone/time pairs checked)`,
  )

  // The simulated day: jump to each next due time (plus the tick), run the job and the worker.
  const statuses: string[] = ['scheduled']
  const dayBegan = performance.now()
  for (let step = 0; step < 10_000; step++) {
    const row = (await t.ctx.sqlite
      .query<{ status: string; scheduled_at: number | null }, [string]>(
        'SELECT status, scheduled_at FROM campaigns WHERE id = ?1',
      )
      .get(c.id))!
    if (statuses.at(-1) !== row.status) statuses.push(row.status)
    if (row.status === 'sent') break
    const next = Math.min(
      (await firstDueAt(t.ctx, c.id)) ?? Number.POSITIVE_INFINITY,
      row.status === 'scheduled' ? (row.scheduled_at ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY,
    )
    if (!Number.isFinite(next)) throw new BenchError(`nothing due and the campaign ${row.status}`)
    if (next + TICK_MS > clock.now()) clock.set(next + TICK_MS)
    await startDueCampaigns(t.ctx)
    await worker.drain()
  }
  const dayMs = performance.now() - dayBegan

  let worst = Number.NEGATIVE_INFINITY
  let earliest = Number.POSITIVE_INFINITY
  let sent = 0
  for (const r of t.ctx.sqlite
    .query<{ seq: number; sent_at: number | null }, [string]>(
      'SELECT seq, sent_at FROM messages WHERE campaign_id = ?1',
    )
    .iterate(c.id)) {
    if (r.sent_at === null) continue
    sent++
    const lateness = r.sent_at - due.get(r.seq)!
    worst = Math.max(worst, lateness)
    earliest = Math.min(earliest, lateness)
  }
  await capture.close()
  await t.close()
  release()
  if (sent !== N) throw new BenchError(`${fmt(sent)} of ${fmt(N)} sent`)
  const pass = worst <= BAR_MS && earliest >= 0
  const order = statuses.join(' → ')
  console.log(
    `| Local-time delivery, ${fmt(N)} recipients in 24 zones (${instants} due times), injected clock | max lateness ${fmt(worst / 1000, 1)} s (earliest ${fmt(earliest / 1000, 1)} s after due; ${fmt(TICK_MS / 1000)} s of it the scheduler's tick); audience copy ${fmt(snapshotMs)} ms; ${order} | <= 60 s, none early: ${pass ? 'met' : 'MISSED'} |`,
  )
  console.log(
    JSON.stringify({
      recipients: N,
      zones: ZONES.length - 1,
      due_times: instants,
      max_lateness_ms: worst,
      min_lateness_ms: earliest,
      tick_ms: TICK_MS,
      snapshot_ms: Math.round(snapshotMs),
      simulated_day_wall_ms: Math.round(dayMs),
      statuses,
      bar_ms: BAR_MS,
      pass,
    }),
  )
  return pass
}

runBench(main)
