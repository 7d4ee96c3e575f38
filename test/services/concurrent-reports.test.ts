import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../../src/config'
import { type AppContext, withActor } from '../../src/context'
import { createAppContext } from '../../src/create-context'
import { DIALECT } from '../../src/db/dialect'
import { rawRows } from '../../src/db/raw'
import { inTransaction } from '../../src/db/transaction'
import type { ServiceError } from '../../src/errors'
import { parseId } from '../../src/lib/ids'
import { silentLogger } from '../../src/lib/log'
import { systemActor } from '../../src/services/actors/actor'
import { decide } from '../../src/services/campaigns/ab-decide'
import { completeIfDone } from '../../src/services/campaigns/complete'
import { launchCampaign } from '../../src/services/campaigns/launch'
import { addMembers } from '../../src/services/lists/membership'
import { recordBounce, recordOpen, unsubscribeViaMessage } from '../../src/services/messages/activity'
import { BASE, createTestApp } from '../helpers/app'
import { campaignTenant, messagesOf } from '../helpers/campaign'
import { untilOneWaitsOnLock } from '../helpers/pg-database'
import { startTestSender } from '../helpers/sender'
import { scratchDirs } from '../helpers/temp-dir'

// Two processes on one PostgreSQL handling the same report at the same moment (a bounce from the
// DSN and from the provider, two fetches of the open pixel, a one-click POST and a click on the
// link, two send workers finishing one campaign, two launches, two A/B decisions, one contact put on a list twice): the second waits for the first's transaction,
// then reads what it wrote, and records and counts nothing more. Each case holds the first
// process's transaction open until the second is seen waiting. (SQLite: one process.)

const pg = DIALECT === 'postgres'
const tempDir = scratchDirs()
const t = await createTestApp()
const url = t.ctx.config.databaseUrl
const other = pg
  ? await createAppContext(
      loadConfig(
        { data: tempDir('herald-other-') },
        {
          HERALD_PUBLIC_URL: BASE,
          HERALD_DATABASE_URL: url!,
          HERALD_SECRET_KEY: Buffer.from(t.ctx.secretKey).toString('hex'),
        },
      ),
      { log: silentLogger },
    )
  : null
const watch = pg ? new SQL({ url: url!, max: 1 }) : null
afterAll(async () => {
  await watch?.close()
  await other?.store.close()
})

const count = async (query: ReturnType<typeof sql>) =>
  Number((await rawRows<{ n: unknown }>(t.ctx.db, query))[0]!.n)
/** How many `type` events match `where`. */
const events = (type: string, where: ReturnType<typeof sql>) =>
  count(sql`SELECT count(*) AS n FROM events WHERE type = ${type} AND ${where}`)

const s = await campaignTenant(t, ['a@example.com', 'b@example.com', 'c@example.com'])
const sender = startTestSender(t)
await s.launchAndWait()
await sender.stop()
const [first, second, third] = await messagesOf(t, s.campaign.id)
const campaignId = s.campaign.id as string
/** One of the campaign's counters. */
const counter = (name: 'opened' | 'bounced' | 'unsubscribed') =>
  count(sql`SELECT ${sql.raw(name)} AS n FROM campaigns WHERE id = ${campaignId}`)

/** `run` in the other process's open transaction, then `here` in this one, which must wait for it. */
async function atOnce<T>(run: () => Promise<unknown>, here: () => Promise<T>): Promise<T> {
  let waiting: Promise<T> | undefined
  await inTransaction(other!.sqlite, async () => {
    await run()
    waiting = here()
    await untilOneWaitsOnLock(watch!, 'the second waits for the first')
  })
  return await waiting!
}

test.if(pg)('two opens of one message at once count one open', async () => {
  const reader = 'Mozilla/5.0 (Windows NT 10.0) reader'
  await atOnce(
    () => recordOpen(other!, first!, reader, Date.now()),
    () => recordOpen(t.ctx, first!, reader, Date.now()),
  )
  expect(await counter('opened')).toBe(1)
})

test.if(pg)('two hard bounces of one message at once record one bounce', async () => {
  const bounce = { type: 'hard' as const, statusCode: '5.1.1', diagnostic: 'no such user' }
  expect(
    await atOnce(
      () => recordBounce(other!, second!, bounce, Date.now()),
      () => recordBounce(t.ctx, second!, bounce, Date.now()),
    ),
  ).toBe(false)
  expect(await events('email.bounced', sql`message_id = ${second!.id}`)).toBe(1)
  expect(await counter('bounced')).toBe(1)
})

test.if(pg)('two opt-outs of one contact at once record one', async () => {
  await atOnce(
    () => unsubscribeViaMessage(other!, third!, 'one_click', Date.now()),
    () => unsubscribeViaMessage(t.ctx, third!, 'one_click', Date.now()),
  )
  expect(await events('contact.unsubscribed', sql`contact_id = ${third!.contactId}`)).toBe(1)
  expect(await counter('unsubscribed')).toBe(1)
})

test.if(pg)('two processes finishing one campaign at once complete it once', async () => {
  await rawRows(t.ctx.db, sql`UPDATE campaigns SET status = 'sending' WHERE id = ${campaignId}`)
  const completions = () => events('campaign.complete', sql`campaign_id = ${campaignId}`)
  const before = await completions()
  expect(
    await atOnce(
      async () => expect(await completeIfDone(other!, campaignId)).toBe(true),
      () => completeIfDone(t.ctx, campaignId),
    ),
  ).toBe(false)
  expect((await completions()) - before).toBe(1)
})

test.if(pg)('two launches of one campaign at once: the second answers as if it came after', async () => {
  const c = await s.call('POST', '/api/v1/campaigns', {
    name: 'Twice',
    list_id: s.list.id,
    subject: 'Hi',
    body_html: '<p>Hi</p>',
  })
  const id = parseId(c.id)!
  const as = (app: AppContext) => withActor(app, systemActor('test'), 'test')
  const answer = await atOnce(
    () => launchCampaign(as(other!), id, { confirm: true }),
    () =>
      inTransaction(t.ctx.sqlite, () => launchCampaign(as(t.ctx), id, { confirm: true })).then(
        () => 'launched twice',
        (err: ServiceError) => err.code,
      ),
  )
  expect(answer).toBe('INVALID_STATE')
  expect(await count(sql`SELECT count(*) AS n FROM campaigns WHERE id = ${id} AND status = 'sending'`)).toBe(
    1,
  )
})

test.if(pg)('an A/B test decided by two processes at once is decided once', async () => {
  const c = await s.call('POST', '/api/v1/campaigns', {
    name: 'Split',
    list_id: s.list.id,
    subject: 'Base',
    body_html: '<p>Hi</p>',
    variants: [
      { name: 'A', subject: 'Plain' },
      { name: 'B', subject: 'Exciting' },
    ],
    ab_test: { test_share: 0.2, metric: 'open_rate', duration: 'PT4H' },
  })
  const id = parseId(c.id)!
  await rawRows(
    t.ctx.db,
    sql`UPDATE campaigns SET status = 'sending', ab_started_at = ${Date.now()} WHERE id = ${id}`,
  )
  // The job in one process picks A while an operator picks B in the other.
  const later = await atOnce(
    () => decide(other!, id, Date.now(), 0),
    () => decide(t.ctx, id, Date.now(), 1),
  )
  expect(later).toBeNull()
  const [row] = await rawRows<{ winner: unknown }>(
    t.ctx.db,
    sql`SELECT ab_decision->>'winner' AS winner FROM campaigns WHERE id = ${id}`,
  )
  expect(Number(row!.winner)).toBe(0)
})

test.if(pg)('one contact put on a list by two processes at once counts once', async () => {
  const listId = parseId((await s.call('POST', '/api/v1/lists', { name: 'Both' })).id)!
  const contactId = first!.contactId
  const changed = await atOnce(
    () => addMembers(other!, listId, [contactId], Date.now()),
    () => inTransaction(t.ctx.sqlite, () => addMembers(t.ctx, listId, [contactId], Date.now())),
  )
  expect(changed).toEqual([])
  expect(await count(sql`SELECT member_count AS n FROM lists WHERE id = ${listId}`)).toBe(1)
})
