import type { AppContext } from '../context'
import { eventsAfter } from '../db/events'
import { inTransaction } from '../db/transaction'
import { type NewDelivery, webhookQueueOf } from '../db/webhook-queue'
import { sequencedId } from '../lib/ids'

// Fan-out: events past the persisted high-water mark (by `seq`, which is commit order even
// with several writer processes: src/db/events.ts) become one delivery row per matching active
// webhook of the same client, in one transaction with the new mark, so a crash either keeps
// both or neither. On PostgreSQL the mark's row is locked for that transaction, and another
// process's fan-out skips it meanwhile instead of reading the same batch and waiting on the
// commit; the mark still moves by compare-and-set, so no store delivers a batch twice. A
// webhook receives events newer than itself only (UUIDv7 ids compare in creation order).

const BATCH = 1000

/** Creates deliveries for the next batch of new events; `more` when another batch waits. */
export async function fanOut(app: AppContext): Promise<{ created: number; more: boolean }> {
  const { sqlite } = app
  const q = webhookQueueOf(app.store)
  // Most passes find nothing new: learn that without a transaction (a write lock on SQLite, a
  // BEGIN and a COMMIT on PostgreSQL).
  if (!(await q.eventsPastMark())) return { created: 0, more: false }
  return await inTransaction(sqlite, async () => {
    const mark = await q.dispatchMark()
    // Another process is fanning out; what it leaves is read at the next pass.
    if (mark === null) return { created: 0, more: false }
    const rows = await eventsAfter(sqlite, mark, BATCH)
    if (rows.length === 0) return { created: 0, more: false }
    if (!(await q.advanceDispatchMark(mark, rows.at(-1)!.seq))) return { created: 0, more: true }
    const hooksOf = new Map<string, { id: string; events: Set<string> }[]>()
    const now = app.clock.now()
    const deliveries: NewDelivery[] = []
    for (const e of rows) {
      let n = 0
      let hooks = hooksOf.get(e.client_id)
      if (!hooks) {
        hooks = (await q.activeHooksOf(e.client_id)).map((h) => ({
          id: h.id,
          events: new Set(JSON.parse(h.events) as string[]),
        }))
        hooksOf.set(e.client_id, hooks)
      }
      for (const h of hooks) {
        if (h.id > e.id || !h.events.has(e.type)) continue
        deliveries.push({
          // Ids in event order: a lane claims by (due, id), and two processes' fan-outs in one
          // millisecond must not interleave an endpoint's events.
          id: sequencedId(now, e.seq, n++),
          webhookId: h.id,
          clientId: e.client_id,
          eventId: e.id,
          eventType: e.type,
          now,
        })
      }
    }
    await q.insertDeliveries(deliveries)
    return { created: deliveries.length, more: rows.length === BATCH }
  })
}
