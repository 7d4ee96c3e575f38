import { and, eq, lt } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { jobSlots } from '../../db/schema'

/**
 * Claims a scheduled firing of `name` (its slot: the time the schedule named) for this process:
 * true when no process has claimed this slot or a later one. One row per job, moved forward
 * by the claim that wins; a concurrent claim of the same slot waits for the winner's row and then
 * finds it already there.
 */
export async function claimJobSlot(db: Db, name: string, slotAt: number): Promise<boolean> {
  const moved = await db
    .update(jobSlots)
    .set({ slotAt })
    .where(and(eq(jobSlots.name, name), lt(jobSlots.slotAt, slotAt)))
    .returning({ name: jobSlots.name })
  if (moved.length > 0) return true
  // The job's first firing on this database (or a slot already taken).
  const inserted = await db
    .insert(jobSlots)
    .values({ name, slotAt })
    .onConflictDoNothing()
    .returning({ name: jobSlots.name })
  return inserted.length > 0
}
