import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { SQL } from 'bun'
import { useBinary } from '../helpers/binary'
import {
  expectOneMessageIdEach,
  type KeyedServer,
  keyedServers,
  type SendingAudience,
  sendingAudience,
  smtpWorld,
} from '../helpers/binary-api'
import { blankDatabase } from '../helpers/postgres'
import { until } from '../helpers/receiver'
import type { Received } from '../helpers/smtp-sink'

// Two `herald serve` processes on one PostgreSQL database while a campaign sends through both:
// one is killed with SIGKILL, and the other takes over what it held once the leases run out;
// then both are restarted in turn with SIGTERM, as in a rolling upgrade. Each recipient gets the
// message, once; the only copies are of sends in flight at the kill, with the same Message-ID.
// Leases are keyedServers' 10 s: a claimed message waits its turn in its batch, and a lease that
// ran out meanwhile (3 s did on this machine) would let the other process send it at once too.

setDefaultTimeout(60_000)
const bin = useBinary('herald-multi-kill-')
const serve = keyedServers(bin, `hrld_${'Multi0Kill1Key2'.repeat(3)}`)
const RECIPIENTS = 3000
/**
 * Copies a kill may leave: sends the SMTP server accepted whose outcome the dead process had not
 * written yet (they are written every 25 ms, at most 8 sends in flight per lane).
 */
const IN_FLIGHT_COPIES = 100

let url = ''
let world: Awaited<ReturnType<typeof smtpWorld>>
let env: Record<string, string> = {}
let audience: SendingAudience
const servers: Record<'a' | 'b', KeyedServer | null> = { a: null, b: null }
let db: SQL

const start = async (name: 'a' | 'b') => {
  servers[name] = await serve(join(bin.work, name), env)
  return servers[name]
}

beforeAll(async () => {
  url = await blankDatabase()
  world = await smtpWorld()
  env = {
    ...world.env,
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
  }
  const [a] = await Promise.all([start('a'), start('b')])
  audience = await sendingAudience(a.call, world.dns, {
    domain: 'kill.example',
    from: 'news',
    fromName: 'News',
    contacts: RECIPIENTS,
    prefix: 'k',
    importMs: 30_000,
  })
  db = new SQL({ url, max: 1 })
  // Every claimed job slot and every recorded job run, as the rows change (job_runs and job_slots
  // keep one row per job).
  await db.unsafe(`
    CREATE TABLE test_job_log (tbl text NOT NULL, name text NOT NULL, at bigint NOT NULL);
    CREATE FUNCTION test_job_logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO test_job_log VALUES (TG_TABLE_NAME, NEW.name, (to_jsonb(NEW) ->> TG_ARGV[0])::bigint);
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_runs AFTER INSERT OR UPDATE ON job_runs FOR EACH ROW EXECUTE FUNCTION test_job_logged('last_run_at');
    CREATE TRIGGER test_slots AFTER INSERT OR UPDATE ON job_slots FOR EACH ROW EXECUTE FUNCTION test_job_logged('slot_at');
  `)
}, 90_000)

afterAll(async () => {
  await db?.close()
  await world?.sink.close()
})

/** Launches a campaign to the list through `via`; answers its id and where its messages start. */
async function launch(via: KeyedServer, name: string) {
  const { q, list } = audience
  const campaign = await via.call('POST', `/api/v1/campaigns${q}`, {
    name,
    list_id: list.id,
    subject: `${name} {{ contact.email }}`,
    body_html: '<p>Hi</p>',
  })
  const from = world.sink.received.length
  await via.call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  const received = () => world.sink.received.slice(from)
  return { id: campaign.id as string, received }
}

/** Waits for the campaign to end `sent`, then for the messages its counters say it sent. */
async function sentBy(via: KeyedServer, id: string, received: () => Received[]) {
  await until(
    async () => (await via.call('GET', `/api/v1/campaigns/${id}`)).status === 'sent',
    45_000,
    'sent',
  )
  const [row] = (await db`SELECT count(*)::int AS n FROM messages
    WHERE campaign_id = ${id} AND status IN ('sent', 'delivered')`) as { n: number }[]
  expect(row!.n).toBe(RECIPIENTS)
  await until(() => new Set(received().map((m) => m.rcptTo[0])).size >= RECIPIENTS, 5_000, 'every message')
  return received()
}

test('kill -9 of one process mid-campaign: the other sends what it held, each recipient once', async () => {
  const a = servers.a!
  const b = servers.b!
  const since = Date.now()
  const { id, received } = await launch(a, 'Killed')
  await until(() => received().length >= RECIPIENTS / 3, 30_000, 'a third sent')
  a.proc.kill('SIGKILL')
  await a.proc.exited
  servers.a = null

  const all = await sentBy(b, id, received)
  // A message the dead process held went out again after its lease, with the same Message-ID.
  expectOneMessageIdEach(all, (m) => m.rcptTo[0]!, RECIPIENTS)
  // What the dead process held was claimed a second time (each claim counts an attempt).
  const [{ held }] = (await db`SELECT count(*)::int AS held FROM messages
    WHERE campaign_id = ${id} AND attempts > 1`) as [{ held: number }]
  expect(held).toBeGreaterThan(0)
  const copies = all.length - RECIPIENTS
  expect(copies).toBeLessThanOrEqual(Math.min(held, IN_FLIGHT_COPIES))

  // Each per-second firing of campaigns.start-scheduled was claimed once (one process moved the
  // slot forward) and ran once: a run belongs to the last slot claimed before it started.
  const log = (await db`SELECT tbl, at FROM test_job_log
    WHERE name = 'campaigns.start-scheduled' AND at >= ${since} ORDER BY at`) as { tbl: string; at: string }[]
  const slots = log.filter((r) => r.tbl === 'job_slots').map((r) => Number(r.at))
  const runs = log.filter((r) => r.tbl === 'job_runs').map((r) => Number(r.at))
  expect(new Set(slots).size).toBe(slots.length)
  expect(slots.length).toBeGreaterThan((Date.now() - since) / 1000 - 3)
  const runsPerSlot = new Map<number, number>()
  for (const at of runs) {
    const slot = slots.findLast((s) => s <= at)!
    runsPerSlot.set(slot, (runsPerSlot.get(slot) ?? 0) + 1)
  }
  expect(Math.max(...runsPerSlot.values())).toBe(1)
  // The slot a process claimed just before it was killed, and the last one, may have no run yet.
  expect(runs.length).toBeGreaterThanOrEqual(slots.length - 2)
})

test('a rolling restart of both processes during a campaign loses nothing and sends nothing twice', async () => {
  const b = servers.b!
  const a = servers.a ?? (await start('a'))
  const { id, received } = await launch(a, 'Rolling')
  await until(() => received().length >= RECIPIENTS / 10, 30_000, 'sending')

  // As in an upgrade: stop one (it finishes the sends it holds), start it again, then the other.
  a.proc.kill('SIGTERM')
  expect(await a.proc.exited).toBe(0)
  await start('a')
  b.proc.kill('SIGTERM')
  const stoppedB = received().length
  expect(await b.proc.exited).toBe(0)
  const restarted = await start('b')
  expect(stoppedB).toBeLessThan(RECIPIENTS) // still sending when the last one stopped

  const all = await sentBy(restarted, id, received)
  expectOneMessageIdEach(all, (m) => m.rcptTo[0]!, RECIPIENTS)
  expect(all).toHaveLength(RECIPIENTS) // a clean stop sends what it claimed: no copies
})
