import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../../src/config'
import { createSharedBuckets } from '../../src/db/shared-buckets'
import { createWindowLimits } from '../../src/queue/throttle'
import { createTestApp } from '../helpers/app'
import { rowOf, rowsOf } from '../helpers/raw-sql'

// Limits that several processes count together in the database: each "process" here is its own
// set of buckets or windows on one store, as two `herald serve` on one PostgreSQL would have.
// Runs on both stores (the product uses these on PostgreSQL only; the statements are the same).

const t = await createTestApp()
const T0 = Date.parse('2026-11-29T10:00:30.000Z')
const STANDARD = { perMinute: 600, burst: 100 }

test('two processes taking turns at one instant get no more than the burst, and nearly all of it', async () => {
  const a = createSharedBuckets(t.ctx.db, 'turns')
  const b = createSharedBuckets(t.ctx.db, 'turns')
  let allowed = 0
  for (let i = 0; i < 300; i++) if ((await (i % 2 ? a : b)('key-1', STANDARD, T0)).allowed) allowed++
  // At most the tenth of the burst that processes hold unspent is lost; nothing is overdrawn.
  expect(allowed).toBeLessThanOrEqual(100)
  expect(allowed).toBeGreaterThanOrEqual(90)
})

test('over a minute of requests at twice the rate, two processes together stay within 10 % of the tier', async () => {
  const a = createSharedBuckets(t.ctx.db, 'minute')
  const b = createSharedBuckets(t.ctx.db, 'minute')
  let allowed = 0
  // 20 requests a second for 60 s, alternating, against 10 a second (600/min) and a burst of 100.
  for (let ms = 0; ms < 60_000; ms += 50)
    if ((await (ms % 100 ? a : b)('key-2', STANDARD, T0 + ms)).allowed) allowed++
  const budget = 100 + 600
  expect(allowed).toBeLessThanOrEqual(budget * 1.1)
  expect(allowed).toBeGreaterThanOrEqual(budget * 0.9)
})

test('a refusal answers the wait and costs no write until the bucket could pay again', async () => {
  const a = createSharedBuckets(t.ctx.db, 'refuse')
  for (let i = 0; i < 100; i++) expect((await a('key-3', STANDARD, T0)).allowed).toBe(true)
  const refused = await a('key-3', STANDARD, T0)
  expect(refused.allowed).toBe(false)
  expect(refused.headers['retry-after']).toBe('1')
  expect(refused.retryAfterMs).toBe(100)
  const before = await rowOf<{ at: number }>(t, sql`SELECT at FROM rate_buckets WHERE key = 'refuse:key-3'`)
  expect((await a('key-3', STANDARD, T0 + 50)).allowed).toBe(false)
  const after = await rowOf<{ at: number }>(t, sql`SELECT at FROM rate_buckets WHERE key = 'refuse:key-3'`)
  expect(Number(after!.at)).toBe(Number(before!.at))
  // A token later the bucket pays again.
  expect((await a('key-3', STANDARD, T0 + 100)).allowed).toBe(true)
})

test('tokens a process holds unspent go back to the bucket with its next take', async () => {
  const slow = { perMinute: 1, burst: 100 }
  const a = createSharedBuckets(t.ctx.db, 'give-back')
  const b = createSharedBuckets(t.ctx.db, 'give-back')
  expect((await a('key-4', slow, T0)).allowed).toBe(true) // took 5, holds 4
  expect((await a('key-4', slow, T0 + 2_000)).allowed).toBe(true) // gave 4 back, took 5, holds 4
  let drained = 0
  while ((await b('key-4', slow, T0 + 2_000)).allowed) drained++
  // 100 - 1 - 5 (one spent, five held now); without the give-back it would be 90.
  expect(drained).toBe(94)
})

test('a batch cost is paid whole or refused whole across processes', async () => {
  const a = createSharedBuckets(t.ctx.db, 'batch')
  const b = createSharedBuckets(t.ctx.db, 'batch')
  expect((await a('key-5', STANDARD, T0, 60)).allowed).toBe(true)
  expect((await b('key-5', STANDARD, T0, 60)).allowed).toBe(false)
  expect((await b('key-5', STANDARD, T0, 30)).allowed).toBe(true)
})

const config = (env: Record<string, string>) => loadConfig({ data: '/tmp/unused' }, env)
const noOutbox = { sentSince: async () => 0 }

test("a recipient domain's throttle holds across processes, to the message", async () => {
  const cfg = config({ HERALD_DOMAIN_THROTTLE: '10' })
  const a = createWindowLimits(noOutbox, cfg, undefined, t.ctx.db)
  const b = createWindowLimits(noOutbox, cfg, undefined, t.ctx.db)
  const results = []
  for (let i = 0; i < 15; i++)
    results.push(await (i % 2 ? a : b).reserve('c1', `r${i}@throttled.example`, T0))
  expect(results.filter((r) => r === null)).toHaveLength(10)
  expect(results.slice(10)).toEqual(
    Array(5).fill({ at: Date.parse('2026-11-29T10:01:00.000Z'), reason: 'throttle' }),
  )
  // The next minute is a new window.
  expect(await a.reserve('c1', 'x@throttled.example', T0 + 60_000)).toBeNull()
})

test("a client's hourly cap starts from the hour's sends already made and holds across processes", async () => {
  const cfg = config({ HERALD_CLIENT_HOURLY_CAP: '8', HERALD_DOMAIN_THROTTLE: '1000' })
  const outbox = { sentSince: async () => 3 }
  const a = createWindowLimits(outbox, cfg, undefined, t.ctx.db)
  const b = createWindowLimits(outbox, cfg, undefined, t.ctx.db)
  let accepted = 0
  for (let i = 0; i < 10; i++)
    if ((await (i % 2 ? a : b).reserve('c-hour', `r${i}@capped.example`, T0)) === null) accepted++
  expect(accepted).toBe(5)
})

test('a send one window refuses is not counted in the others', async () => {
  const cfg = config({ HERALD_CLIENT_HOURLY_CAP: '100', HERALD_DOMAIN_THROTTLE: '2' })
  const a = createWindowLimits(noOutbox, cfg, undefined, t.ctx.db)
  for (let i = 0; i < 5; i++) await a.reserve('c-both', `r${i}@both.example`, T0)
  const rows = await rowsOf<{ key: string; count: number }>(
    t,
    sql`SELECT key, count FROM send_windows WHERE key IN ('hour|c-both', 'minute|both.example') ORDER BY key`,
  )
  expect(rows.map((r) => [r.key, Number(r.count)])).toEqual([
    ['hour|c-both', 2],
    ['minute|both.example', 2],
  ])
})

test('a send whose count failed half-way is taken back from the windows that counted it', async () => {
  const cfg = config({ HERALD_CLIENT_HOURLY_CAP: '100', HERALD_DOMAIN_THROTTLE: '3' })
  // The hour's seed (the sends already made this hour) cannot be read: the store went away
  // after the domain's minute had counted the send.
  const away = createWindowLimits(
    {
      sentSince: async () => {
        throw new Error('the store went away')
      },
    },
    cfg,
    undefined,
    t.ctx.db,
  )
  await expect(away.reserve('c-undo', 'r0@undo.example', T0)).rejects.toThrow('the store went away')
  const minute = await rowOf<{ count: number }>(
    t,
    sql`SELECT count FROM send_windows WHERE key = 'minute|undo.example'`,
  )
  expect(Number(minute?.count)).toBe(0)
  // The minute's three places are all there for the sends that can be counted.
  const a = createWindowLimits(noOutbox, cfg, undefined, t.ctx.db)
  const results = []
  for (let i = 1; i <= 4; i++) results.push(await a.reserve('c-undo', `r${i}@undo.example`, T0))
  expect(results.map((r) => r?.reason ?? 'sent')).toEqual(['sent', 'sent', 'sent', 'throttle'])
})

test('a refused batch does not refuse the cheaper calls the bucket can still pay, and a cost over the burst takes nothing', async () => {
  const a = createSharedBuckets(t.ctx.db, 'costs')
  const b = createSharedBuckets(t.ctx.db, 'costs')
  // Never payable: refused, and nothing taken from what the other process can spend.
  expect((await a('key-6', STANDARD, T0, 101)).allowed).toBe(false)
  let drained = 0
  while ((await b('key-6', STANDARD, T0)).allowed) drained++
  expect(drained).toBe(100)
  // A batch the bucket cannot pay is refused; a single call after it still gets a token.
  const c = createSharedBuckets(t.ctx.db, 'costs')
  for (let i = 0; i < 90; i++) expect((await c('key-7', STANDARD, T0)).allowed).toBe(true)
  expect((await c('key-7', STANDARD, T0, 60)).allowed).toBe(false)
  expect((await c('key-7', STANDARD, T0)).allowed).toBe(true)
})
