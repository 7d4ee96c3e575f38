import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { contacts, listMembers, lists } from '../../db/schema'
import { type FieldError, validationFailed } from '../../errors'
import { listJoinWatched, onListJoined } from '../journeys/triggers'

const CHUNK = 500

/** Ids of `ids` that are contacts of `clientId`; the rest are reported as failures of `field`. */
export function assertContactsOfClient(
  db: Db,
  clientId: string,
  ids: readonly string[],
  field: string,
): void {
  const found = new Set<string>()
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK)
    for (const r of db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.clientId, clientId), inArray(contacts.id, chunk)))
      .all())
      found.add(r.id)
  }
  const errors: FieldError[] = []
  ids.forEach((id, i) => {
    if (!found.has(id) && errors.length < 20)
      errors.push({ field: `${field}[${i}]`, message: 'no such contact' })
  })
  if (errors.length) throw validationFailed(errors)
}

/** Lists of `clientId` among `ids`; unknown or foreign ones fail as `field[i]` (or `field` when not indexed). */
export function assertListsOfClient(
  db: Db,
  clientId: string,
  ids: readonly string[],
  field: string,
  indexed = true,
): void {
  if (ids.length === 0) return
  const found = new Set(
    db
      .select({ id: lists.id })
      .from(lists)
      .where(and(eq(lists.clientId, clientId), inArray(lists.id, [...ids])))
      .all()
      .map((r) => r.id),
  )
  const errors = ids.flatMap((id, i) =>
    found.has(id) ? [] : [{ field: indexed ? `${field}[${i}]` : field, message: 'no such list' }],
  )
  if (errors.length) throw validationFailed(errors)
}

/** Adds members (already a member is not an error); keeps member_count exact. Returns how many were new. */
export function addMembers(db: Db, listId: string, contactIds: readonly string[], now: number): number {
  // Journeys that start when someone joins this list learn who joined (only then: RETURNING costs).
  if (listJoinWatched(db, listId)) {
    const joined: string[] = []
    for (let i = 0; i < contactIds.length; i += CHUNK) {
      const rows = contactIds.slice(i, i + CHUNK).map((contactId) => ({ listId, contactId, addedAt: now }))
      for (const r of db
        .insert(listMembers)
        .values(rows)
        .onConflictDoNothing()
        .returning({ id: listMembers.contactId })
        .all())
        joined.push(r.id)
    }
    bumpMembers(db, listId, joined.length, now)
    onListJoined(db, listId, joined, now)
    return joined.length
  }
  let added = 0
  for (let i = 0; i < contactIds.length; i += CHUNK) {
    const rows = contactIds.slice(i, i + CHUNK).map((contactId) => ({ listId, contactId, addedAt: now }))
    const result = db.insert(listMembers).values(rows).onConflictDoNothing().run() as unknown as {
      changes: number
    }
    added += result.changes
  }
  bumpMembers(db, listId, added, now)
  return added
}

function bumpMembers(db: Db, listId: string, added: number, now: number) {
  if (added > 0)
    db.update(lists)
      .set({ memberCount: sql`${lists.memberCount} + ${added}`, updatedAt: now })
      .where(eq(lists.id, listId))
      .run()
}

export function removeMembers(db: Db, listId: string, contactIds: readonly string[], now: number): number {
  let removed = 0
  for (let i = 0; i < contactIds.length; i += CHUNK) {
    const result = db
      .delete(listMembers)
      .where(
        and(eq(listMembers.listId, listId), inArray(listMembers.contactId, contactIds.slice(i, i + CHUNK))),
      )
      .run() as unknown as { changes: number }
    removed += result.changes
  }
  if (removed > 0)
    db.update(lists)
      .set({ memberCount: sql`${lists.memberCount} - ${removed}`, updatedAt: now })
      .where(eq(lists.id, listId))
      .run()
  return removed
}

/** Removes a contact from every list it is in (erasure), keeping each member_count exact. */
export function removeFromAllLists(db: Db, contactId: string, now: number): void {
  const memberships = db
    .select({ listId: listMembers.listId })
    .from(listMembers)
    .where(eq(listMembers.contactId, contactId))
    .all()
  for (const { listId } of memberships) removeMembers(db, listId, [contactId], now)
}
