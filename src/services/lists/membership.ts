import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'
import { listMembers, lists } from '../../db/schema'
import type { HookedDb } from '../../hooks'
import type { ConsentAction, MembershipStatus } from '../../lib/enums'
import { type ConsentOrigin, recordConsents } from '../consents/record'

// Membership status changes, keeping each list's member_count (confirmed) and unconfirmed_count
// exact in the caller's transaction, firing list.joined for whoever became a confirmed member and,
// when told where the change came from, writing a consent row per contact that changed.

const CHUNK = 500

export interface AddOptions {
  /** `unconfirmed` waits for the person to confirm (double opt-in). Default `confirmed`. */
  status?: 'confirmed' | 'unconfirmed'
  /**
   * Whether a member who left this list (`unsubscribed`) is taken back. An explicit add by an
   * operator or a person asking again through a form does; a re-imported file does not.
   */
  revive?: boolean
  /** Records a `subscribed` consent row for each contact that changed. */
  consent?: ConsentOrigin
}

interface Delta {
  confirmed: number
  unconfirmed: number
}

async function bumpCounts(db: Db, listId: string, d: Delta, now: number) {
  if (d.confirmed === 0 && d.unconfirmed === 0) return
  await db
    .update(lists)
    .set({
      memberCount: sql`${lists.memberCount} + ${d.confirmed}`,
      unconfirmedCount: sql`${lists.unconfirmedCount} + ${d.unconfirmed}`,
      updatedAt: now,
    })
    .where(eq(lists.id, listId))
}

const countOf = (status: MembershipStatus): Delta => ({
  confirmed: status === 'confirmed' ? 1 : 0,
  unconfirmed: status === 'unconfirmed' ? 1 : 0,
})

/**
 * The contacts' memberships of the list. On PostgreSQL the rows are held until the transaction
 * ends: two processes changing the same memberships take turns, the second reading what the
 * first wrote, so the list's counts move once.
 */
async function statusesOf(db: Db, listId: string, contactIds: readonly string[]) {
  const found = new Map<string, MembershipStatus>()
  if (DIALECT === 'postgres') {
    // The ids as a VALUES list joined to the key: any plan is then linear. As `IN (…)`, a generic
    // plan (prepared statements are reused) or stale statistics filter each member of the list
    // against all 500 ids: 160 ms a chunk for a list of 10,000 being filled in one call.
    const ids = sql.join(
      contactIds.map((id) => sql`(${id})`),
      sql`, `,
    )
    for (const r of await rawRows<{ id: string; status: MembershipStatus }>(
      db,
      sql`SELECT m.contact_id AS id, m.status AS status FROM (VALUES ${ids}) AS i(id)
          JOIN list_members m ON m.list_id = ${listId} AND m.contact_id = i.id FOR UPDATE OF m`,
    ))
      found.set(r.id, r.status)
    return found
  }
  for (const r of await db
    .select({ id: listMembers.contactId, status: listMembers.status })
    .from(listMembers)
    .where(and(eq(listMembers.listId, listId), inArray(listMembers.contactId, [...contactIds]))))
    found.set(r.id, r.status)
  return found
}

const clientOfList = async (db: Db, listId: string) =>
  (await db.select({ clientId: lists.clientId }).from(lists).where(eq(lists.id, listId)).limit(1))[0]
    ?.clientId ?? ''

/** One consent row per contact that changed on `listId`, when the change says where it came from. */
async function consentForList(
  db: Db,
  listId: string,
  contactIds: readonly string[],
  action: ConsentAction,
  now: number,
  consent?: ConsentOrigin,
) {
  if (!consent || contactIds.length === 0) return
  const clientId = await clientOfList(db, listId)
  await recordConsents(
    db,
    consent,
    contactIds.map((contactId) => ({ clientId, contactId, listId, action, at: now })),
  )
}

/**
 * Puts contacts on a list with `status` (already there with that status, or confirmed when
 * `unconfirmed` is asked, is no change). Returns the contacts whose membership changed.
 */
export async function addMembers(
  { db, hooks }: HookedDb,
  listId: string,
  contactIds: readonly string[],
  now: number,
  options: AddOptions = {},
): Promise<string[]> {
  const target = options.status ?? 'confirmed'
  const revive = options.revive ?? true
  const changed: string[] = []
  const joined: string[] = []
  const delta: Delta = { confirmed: 0, unconfirmed: 0 }
  for (let i = 0; i < contactIds.length; i += CHUNK) {
    const chunk = contactIds.slice(i, i + CHUNK)
    const existing = await statusesOf(db, listId, chunk)
    const fresh: string[] = []
    const moved: string[] = []
    for (const id of chunk) {
      const was = existing.get(id)
      if (was === undefined) fresh.push(id)
      else if (was === target || was === 'confirmed' || (was === 'unsubscribed' && !revive)) continue
      else moved.push(id)
    }
    // Only the rows this call inserted count: one another process added at the same moment is
    // its change (and in its counts).
    const inserted = new Set(
      fresh.length === 0
        ? []
        : (
            await db
              .insert(listMembers)
              .values(
                fresh.map((contactId) => ({
                  listId,
                  contactId,
                  status: target,
                  addedAt: now,
                  confirmedAt: target === 'confirmed' ? now : null,
                })),
              )
              .onConflictDoNothing()
              .returning({ contactId: listMembers.contactId })
          ).map((r) => r.contactId),
    )
    const added = fresh.filter((id) => inserted.has(id))
    if (moved.length > 0)
      await db
        .update(listMembers)
        .set({ status: target, addedAt: now, confirmedAt: target === 'confirmed' ? now : null })
        .where(and(eq(listMembers.listId, listId), inArray(listMembers.contactId, moved)))
    for (const id of moved) {
      const was = countOf(existing.get(id)!)
      delta.confirmed -= was.confirmed
      delta.unconfirmed -= was.unconfirmed
    }
    const now_ = countOf(target)
    delta.confirmed += now_.confirmed * (added.length + moved.length)
    delta.unconfirmed += now_.unconfirmed * (added.length + moved.length)
    changed.push(...added, ...moved)
    if (target === 'confirmed') joined.push(...added, ...moved)
  }
  await bumpCounts(db, listId, delta, now)
  await consentForList(db, listId, changed, 'subscribed', now, options.consent)
  if (joined.length > 0 && (await hooks.listJoined.wants(listId)))
    await hooks.listJoined.trigger({ listId, contactIds: joined, at: now })
  return changed
}

/**
 * Confirms a contact's unconfirmed memberships of `listIds` (a confirmation link, a second
 * click changes nothing). Returns the lists confirmed now.
 */
export async function confirmMemberships(
  hdb: HookedDb,
  contactId: string,
  listIds: readonly string[],
  now: number,
  consent?: ConsentOrigin,
): Promise<string[]> {
  const confirmed: string[] = []
  for (const listId of listIds) {
    const row = (
      await hdb.db
        .update(listMembers)
        .set({ status: 'confirmed', confirmedAt: now })
        .where(
          and(
            eq(listMembers.listId, listId),
            eq(listMembers.contactId, contactId),
            eq(listMembers.status, 'unconfirmed'),
          ),
        )
        .returning({ id: listMembers.contactId })
    )[0]!
    if (!row) continue
    await bumpCounts(hdb.db, listId, { confirmed: 1, unconfirmed: -1 }, now)
    confirmed.push(listId)
    if (await hdb.hooks.listJoined.wants(listId))
      await hdb.hooks.listJoined.trigger({ listId, contactIds: [contactId], at: now })
  }
  if (consent && confirmed.length > 0) {
    const clientId = await clientOfList(hdb.db, confirmed[0]!)
    await recordConsents(
      hdb.db,
      consent,
      confirmed.map((listId) => ({ clientId, contactId, listId, action: 'confirmed' as const, at: now })),
    )
  }
  return confirmed
}

/**
 * Marks contacts as having left a list (the preference centre): the row stays, so the list
 * remembers they asked, and they no longer count or receive. Returns who changed.
 */
export async function unsubscribeMembers(
  db: Db,
  listId: string,
  contactIds: readonly string[],
  now: number,
  consent?: ConsentOrigin,
): Promise<string[]> {
  const changed: string[] = []
  const delta: Delta = { confirmed: 0, unconfirmed: 0 }
  for (let i = 0; i < contactIds.length; i += CHUNK) {
    const chunk = contactIds.slice(i, i + CHUNK)
    const existing = await statusesOf(db, listId, chunk)
    // In the order given: the store returns rows in an order of its own.
    const leaving = [...new Set(chunk)].flatMap((id) => {
      const status = existing.get(id)
      return status === undefined || status === 'unsubscribed' ? [] : [[id, status] as const]
    })
    if (leaving.length === 0) continue
    await db
      .update(listMembers)
      .set({ status: 'unsubscribed' })
      .where(
        and(
          eq(listMembers.listId, listId),
          inArray(
            listMembers.contactId,
            leaving.map(([id]) => id),
          ),
        ),
      )
    for (const [id, status] of leaving) {
      const was = countOf(status)
      delta.confirmed -= was.confirmed
      delta.unconfirmed -= was.unconfirmed
      changed.push(id)
    }
  }
  await bumpCounts(db, listId, delta, now)
  await consentForList(db, listId, changed, 'unsubscribed', now, consent)
  return changed
}

/** Takes contacts off a list entirely (the row goes). Returns who was removed. */
export async function removeMembers(
  db: Db,
  listId: string,
  contactIds: readonly string[],
  now: number,
  consent?: ConsentOrigin,
): Promise<string[]> {
  const removed: string[] = []
  const delta: Delta = { confirmed: 0, unconfirmed: 0 }
  for (let i = 0; i < contactIds.length; i += CHUNK) {
    const chunk = contactIds.slice(i, i + CHUNK)
    const gone = new Map<string, MembershipStatus>()
    for (const r of await db
      .delete(listMembers)
      .where(and(eq(listMembers.listId, listId), inArray(listMembers.contactId, chunk)))
      .returning({ id: listMembers.contactId, status: listMembers.status }))
      gone.set(r.id, r.status)
    // In the order given: the store returns rows in an order of its own.
    for (const id of new Set(chunk)) {
      const status = gone.get(id)
      if (status === undefined) continue
      const was = countOf(status)
      delta.confirmed -= was.confirmed
      delta.unconfirmed -= was.unconfirmed
      // Leaving a list one had already left is not a new unsubscribe.
      if (status !== 'unsubscribed') removed.push(id)
    }
  }
  await bumpCounts(db, listId, delta, now)
  await consentForList(db, listId, removed, 'unsubscribed', now, consent)
  return removed
}

/** Removes a contact from every list it is in (erasure), keeping each list's counts exact. */
export async function removeFromAllLists(db: Db, contactId: string, now: number): Promise<void> {
  const memberships = await db
    .select({ listId: listMembers.listId })
    .from(listMembers)
    .where(eq(listMembers.contactId, contactId))
  for (const { listId } of memberships) await removeMembers(db, listId, [contactId], now)
}

/**
 * Drops unconfirmed memberships added before `before` (nobody confirmed within the window);
 * returns how many went.
 */
export async function purgeUnconfirmed(db: Db, before: number, now: number, limit = 5_000): Promise<number> {
  const rows = await db
    .select({ listId: listMembers.listId, contactId: listMembers.contactId })
    .from(listMembers)
    .where(and(eq(listMembers.status, 'unconfirmed'), sql`${listMembers.addedAt} < ${before}`))
    .limit(limit)
  const byList = new Map<string, string[]>()
  for (const r of rows) byList.set(r.listId, [...(byList.get(r.listId) ?? []), r.contactId])
  for (const [listId, ids] of byList) await removeMembers(db, listId, ids, now)
  return rows.length
}
