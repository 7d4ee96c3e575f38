import { and, eq, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { flowQueue } from '../../db/flow-queue'
import { rawRun } from '../../db/raw'
import { type JourneyRow, journeys, segments } from '../../db/schema'
import { journeyFlow } from '../flows/definition'
import { enterContacts, enterWhere } from '../flows/enroll'
import { JOURNEY_EVENT_TYPES } from '../flows/nodes'
import { segmentCondition } from '../segments/records'
import type { RuleGroup } from '../segments/rules'

// The triggers that start journeys by themselves, called from where the thing
// happens, in that transaction: a contact created, contacts joining a list, an event written
// (which also wakes contacts waiting for it, and takes a hard-bounced contact out). Each asks
// the journeys_trigger_idx first, so with no active journey listening they cost one index seek.
// segment_entered is the segment job's: contacts newly matching since its last run.

const listening = async (db: Db, kind: string, ref: SQL | undefined) =>
  await db
    .select()
    .from(journeys)
    .where(and(eq(journeys.status, 'active'), eq(journeys.triggerKind, kind), ref))

export async function onContactCreated(
  db: Db,
  clientId: string,
  contactId: string,
  now: number,
): Promise<number> {
  return await onContactsCreated(db, await contactCreatedJourneys(db, clientId), [contactId], now)
}

/** The active journeys a new contact of this client enters (a bulk insert asks once per batch). */
export const contactCreatedJourneys = async (db: Db, clientId: string): Promise<JourneyRow[]> =>
  await listening(db, 'contact_created', eq(journeys.clientId, clientId))

/** Contacts just created (in this transaction) enter `starting`; how many enrollments. */
export async function onContactsCreated(
  db: Db,
  starting: readonly JourneyRow[],
  contactIds: readonly string[],
  now: number,
): Promise<number> {
  let n = 0
  if (contactIds.length > 0)
    for (const j of starting) n += await enterContacts(db, journeyFlow(j), contactIds, now)
  return n
}

/** Whether any active journey starts when someone joins this list (then addMembers says who joined). */
export const listJoinWatched = async (db: Db, listId: string) =>
  (await listening(db, 'list_joined', eq(journeys.triggerRef, listId))).length > 0

export async function onListJoined(
  db: Db,
  listId: string,
  contactIds: readonly string[],
  now: number,
): Promise<void> {
  if (contactIds.length === 0) return
  for (const j of await listening(db, 'list_joined', eq(journeys.triggerRef, listId)))
    await enterContacts(db, journeyFlow(j), contactIds, now)
}

export interface JourneyEvent {
  type: string
  clientId: string
  contactId?: string | null
  campaignId?: string | null
  occurredAt: number
  data: Record<string, unknown>
}

/** An event was just written: wake waiting contacts, start event journeys, take bounced ones out. */
export async function onJourneyEvent(db: Db, e: JourneyEvent): Promise<void> {
  if (!JOURNEY_EVENT_TYPES.has(e.type) || !e.contactId) return
  const q = flowQueue(db)
  await q.wakeWaiting(e.contactId, e.type, e.occurredAt)
  if (e.type === 'email.bounced' && e.data.bounce_type === 'hard')
    await q.endContact(e.contactId, 'journey', { status: 'exited', reason: 'bounced' }, e.occurredAt)
  const forThisEvent = and(eq(journeys.clientId, e.clientId), eq(journeys.triggerEvent, e.type))
  for (const j of await listening(db, 'event', forThisEvent))
    if (j.triggerRef === null || j.triggerRef === e.campaignId)
      await enterContacts(db, journeyFlow(j), [e.contactId], e.occurredAt)
}

/** A spam complaint takes the contact out of every journey it is in. */
export async function onComplaint(db: Db, contactId: string, at: number): Promise<void> {
  await flowQueue(db).endContact(contactId, 'journey', { status: 'exited', reason: 'complained' }, at)
}

const seen = (journeyId: string) =>
  sql`EXISTS (SELECT 1 FROM journey_segment_seen s WHERE s.journey_id = ${journeyId} AND s.contact_id = contacts.id)`

/** The contacts matching `where` are remembered as seen matching (those already are, kept). */
const rememberSeen = (journeyId: string, where: SQL) =>
  DIALECT === 'postgres'
    ? sql`INSERT INTO journey_segment_seen (journey_id, contact_id)
             SELECT ${journeyId}::text, contacts.id FROM contacts WHERE ${where} ON CONFLICT DO NOTHING`
    : sql`INSERT OR IGNORE INTO journey_segment_seen (journey_id, contact_id)
             SELECT ${journeyId}, contacts.id FROM contacts WHERE ${where}`

async function conditionOf(db: Db, journey: JourneyRow, now: number): Promise<SQL | null> {
  if (!journey.triggerRef) return null
  const seg = (await db.select().from(segments).where(eq(segments.id, journey.triggerRef)).limit(1))[0]
  if (!seg) return null
  return await segmentCondition(db, journey.clientId, seg.match, seg.ruleGroups as RuleGroup[], now)
}

/** At activation: who matches now is not "newly matching". */
export async function baselineSegment(db: Db, journey: JourneyRow, now: number): Promise<void> {
  const where = await conditionOf(db, journey, now)
  if (!where) return
  await rawRun(db, rememberSeen(journey.id, where))
}

/**
 * The segment job: for each active segment_entered journey, contacts matching now and not seen
 * matching before enter (re-entry rules apply); those who stopped matching are forgotten, so
 * matching again later is entering again.
 */
export async function enterNewSegmentMembers(ctx: Ctx): Promise<{ journeys: number; enrolled: number }> {
  const now = ctx.clock.now()
  let enrolled = 0
  const active = await listening(ctx.db, 'segment_entered', undefined)
  for (const j of active) {
    const where = await conditionOf(ctx.db, j, now)
    if (!where) {
      ctx.log.warn('segment_entered journey has no segment', { journey_id: j.id })
      continue
    }
    const fresh = sql`(${where}) AND NOT ${seen(j.id)}`
    enrolled += await enterWhere(ctx.db, journeyFlow(j), fresh, now)
    await rawRun(ctx.db, rememberSeen(j.id, fresh))
    await rawRun(
      ctx.db,
      sql`DELETE FROM journey_segment_seen WHERE journey_id = ${j.id}
                   AND contact_id NOT IN (SELECT contacts.id FROM contacts WHERE ${where})`,
    )
  }
  if (enrolled > 0) ctx.workers.wake('flows')
  return { journeys: active.length, enrolled }
}
