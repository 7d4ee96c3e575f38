import { and, asc, eq, gt, lte, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { outboxOf } from '../../db/outbox'
import { AUDIENCE_COPY_LOCK } from '../../db/postgres/lock-keys'
import { rawRows } from '../../db/raw'
import { type CampaignRow, campaigns, contacts, lists, segments } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { tryWorkLock } from '../../db/work-lock'
import { invalidField } from '../../errors'
import { newId } from '../../lib/ids'
import { estimateSize, segmentCondition } from '../segments/records'
import type { RuleGroup } from '../segments/rules'
import { drawTestGroups, HELD_FOR_DECISION } from './ab-groups'
import { copiedAtLocalTime, localDueTimes } from './local-due'
import { OUTBOX_RULES, STOPPED } from './states'

// The audience snapshot: launch counts the audience and returns; the send worker then copies
// it into the outbox in chunks keyed by contact id, recording the cursor in the same
// transaction as each chunk, so a crash resumes the copy and nothing is inserted twice (the
// outbox is unique per campaign and contact). Contacts and list memberships newer than the
// launch are not part of the snapshot, and only confirmed members are: someone who has not
// confirmed a double opt-in, or left the list, is not in the audience.

export const SNAPSHOT_CHUNK = 2_000

/** How many recipients the audience has now (the launch response's total_recipients). */
export async function countAudience(app: AppContext, c: CampaignRow): Promise<number> {
  if (c.listId) {
    const list = (
      await app.db.select({ n: lists.memberCount }).from(lists).where(eq(lists.id, c.listId)).limit(1)
    )[0]
    if (!list) throw invalidField('list_id', 'the list no longer exists; choose another audience')
    return list.n
  }
  const s = await segmentOf(app, c)
  return await estimateSize(app.db, c.clientId, s.match, s.ruleGroups as RuleGroup[], app.clock.now())
}

export async function segmentOf(app: AppContext, c: CampaignRow) {
  const s = (
    await app.db
      .select()
      .from(segments)
      .where(eq(segments.id, c.segmentId ?? ''))
      .limit(1)
  )[0]
  if (!s) throw invalidField('segment_id', 'the segment no longer exists; choose another audience')
  return s
}

interface Recipient {
  id: string
  email: string
  phone: string | null
  timezone: string | null
}

async function nextRecipients(app: AppContext, c: CampaignRow, after: string): Promise<Recipient[]> {
  const launchedAt = c.launchedAt ?? app.clock.now()
  if (c.listId) {
    // A list deleted before the copy finished fails the campaign, rather than shrinking it.
    if (!(await app.db.select({ id: lists.id }).from(lists).where(eq(lists.id, c.listId)).limit(1))[0])
      throw invalidField('list_id', 'the list was deleted before the audience was copied')
    if (app.store.dialect === 'postgres')
      return await rawRows<Recipient>(
        app.db,
        sql`SELECT c.id, c.email, c.phone, c.timezone FROM list_members lm JOIN contacts c ON c.id = lm.contact_id
          WHERE lm.list_id = ${c.listId} AND lm.contact_id > ${after} AND lm.status = 'confirmed' AND lm.confirmed_at <= ${launchedAt}
          ORDER BY lm.contact_id LIMIT ${SNAPSHOT_CHUNK}`,
      )
    return await app.sqlite
      .query<Recipient, [string, string, number, number]>(
        `SELECT c.id, c.email, c.phone, c.timezone FROM list_members lm JOIN contacts c ON c.id = lm.contact_id
         WHERE lm.list_id = ?1 AND lm.contact_id > ?2 AND lm.status = 'confirmed' AND lm.confirmed_at <= ?3
         ORDER BY lm.contact_id LIMIT ?4`,
      )
      .all(c.listId, after, launchedAt, SNAPSHOT_CHUNK)
  }
  const s = await segmentOf(app, c)
  const where = await segmentCondition(app.db, c.clientId, s.match, s.ruleGroups as RuleGroup[], launchedAt)
  return await app.db
    .select({ id: contacts.id, email: contacts.email, phone: contacts.phone, timezone: contacts.timezone })
    .from(contacts)
    .where(and(where, gt(contacts.id, after), lte(contacts.createdAt, launchedAt)))
    .orderBy(asc(contacts.id))
    .limit(SNAPSHOT_CHUNK)
}

/**
 * Copies the next chunk of the audience into the outbox: `done` when the snapshot is complete
 * (total_recipients is then the exact number of outbox rows), `more` when chunks remain, and
 * `elsewhere` when another process is copying this campaign now.
 */
export async function snapshotChunk(
  app: AppContext,
  campaignId: string,
): Promise<'done' | 'more' | 'elsewhere'> {
  return await inTransaction(app.sqlite, async () => {
    // One process copies a campaign at a time, and reads the cursor the last one moved, so a
    // chunk is copied (and the A/B groups drawn) once. The lock is not the campaign's row: the
    // sends of every process count on that row, and would wait for each chunk.
    if (!(await tryWorkLock(app.db, AUDIENCE_COPY_LOCK, campaignId))) return 'elsewhere'
    const c = (await app.db.select().from(campaigns).where(eq(campaigns.id, campaignId)).limit(1))[0]
    // Cancelled or failed since the campaign was listed: nothing more is copied.
    if (!c || c.snapshotDone || STOPPED.includes(c.status)) return 'done'
    const rows = await nextRecipients(app, c, c.snapshotCursor ?? '')
    const now = app.clock.now()
    const outbox = outboxOf(app.store, OUTBOX_RULES)
    // An A/B test's messages wait until the whole audience is in and the groups are drawn; a
    // local-time campaign's are due at each recipient's hour; the others now.
    const dueOf = await localDueTimes(app, c)
    await outbox.queueCampaignMessages(
      rows.map((r) => ({
        id: newId(),
        clientId: c.clientId,
        campaignId: c.id,
        contactId: r.id,
        channel: c.channel,
        to: c.channel === 'email' ? r.email : (r.phone ?? ''),
        now,
        due: c.abTest ? HELD_FOR_DECISION : dueOf ? dueOf(r.timezone) : now,
      })),
    )
    const done = rows.length < SNAPSHOT_CHUNK
    const cursor = rows.at(-1)?.id ?? c.snapshotCursor
    if (done) {
      const total = await outbox.campaignMessageCount(c.id)
      await app.db
        .update(campaigns)
        .set({
          snapshotCursor: cursor,
          snapshotDone: true,
          totalRecipients: total,
          ...(await copiedAtLocalTime(app, c)),
        })
        .where(eq(campaigns.id, c.id))
      await drawTestGroups(app, outbox, c, now)
    } else await app.db.update(campaigns).set({ snapshotCursor: cursor }).where(eq(campaigns.id, c.id))
    return done ? 'done' : 'more'
  })
}
