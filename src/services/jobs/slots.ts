import { lt } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { jobSlots } from '../../db/schema'

/**
 * Claims a scheduled firing of `name` (its slot: the time the schedule named) for this process:
 * true when no process has claimed this slot or a later one. One row per job, moved forward by
 * the claim that wins, in one statement; a concurrent claim of the same slot waits for the
 * winner's row and then finds it already there.
 */
export async function claimJobSlot(db: Db, name: string, slotAt: number): Promise<boolean> {
  const claimed = await db
    .insert(jobSlots)
    .values({ name, slotAt })
    .onConflictDoUpdate({ target: jobSlots.name, set: { slotAt }, setWhere: lt(jobSlots.slotAt, slotAt) })
    .returning({ name: jobSlots.name })
  return claimed.length > 0
}
