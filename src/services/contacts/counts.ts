import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { clients } from '../../db/schema'

/**
 * clients.contact_count keeps `total` of contact lists exact without counting a million rows per
 * page. Every insert and erasure path calls this in its own transaction.
 */
export async function bumpContactCount(db: Db, clientId: string, delta: number): Promise<void> {
  if (delta === 0) return
  await db
    .update(clients)
    .set({ contactCount: sql`${clients.contactCount} + ${delta}` })
    .where(eq(clients.id, clientId))
}

/** Contacts of one client, or of every client (platform-wide list without a filter). */
export async function contactCount(db: Db, clientId: string | null): Promise<number> {
  const row = (
    await db
      .select({ n: sql<number>`coalesce(sum(${clients.contactCount}), 0)` })
      .from(clients)
      .where(clientId === null ? undefined : eq(clients.id, clientId))
      .limit(1)
  )[0]
  return Number(row?.n ?? 0)
}
