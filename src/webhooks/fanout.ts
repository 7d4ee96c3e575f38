import type { AppContext } from '../context'

// Fan-out: events past the persisted high-water mark become one delivery row per matching
// active webhook of the same client, in one transaction with the new mark, so a crash either
// keeps both or neither. `events` rowids grow in commit order (one writer at a time), so
// nothing committed is ever behind the mark. A webhook receives events newer than itself only
// (UUIDv7 ids compare in creation order).

const BATCH = 1000
const NAME = 'events'

interface EventLite {
  rowid: number
  id: string
  client_id: string
  type: string
}
interface HookLite {
  id: string
  events: string
}

/** Creates deliveries for the next batch of new events; `more` when another batch waits. */
export function fanOut(app: AppContext): { created: number; more: boolean } {
  const { sqlite } = app
  const created = sqlite.transaction(() => {
    const mark =
      (
        sqlite.query('SELECT last_event_rowid AS m FROM webhook_dispatch WHERE name = ?').get(NAME) as {
          m: number
        } | null
      )?.m ?? 0
    const rows = sqlite
      .query('SELECT rowid, id, client_id, type FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?')
      .all(mark, BATCH) as EventLite[]
    if (rows.length === 0) return { created: 0, more: false }
    const hooksOf = new Map<string, { id: string; events: Set<string> }[]>()
    const hooksQuery = sqlite.query('SELECT id, events FROM webhooks WHERE client_id = ? AND active = 1')
    const insert = sqlite.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, client_id, event_id, event_type, test, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 0, 'pending', 0, ?, ?, ?)`,
    )
    const now = app.clock.now()
    let n = 0
    for (const e of rows) {
      let hooks = hooksOf.get(e.client_id)
      if (!hooks) {
        hooks = (hooksQuery.all(e.client_id) as HookLite[]).map((h) => ({
          id: h.id,
          events: new Set(JSON.parse(h.events) as string[]),
        }))
        hooksOf.set(e.client_id, hooks)
      }
      for (const h of hooks) {
        if (h.id > e.id || !h.events.has(e.type)) continue
        insert.run(Bun.randomUUIDv7(), h.id, e.client_id, e.id, e.type, now, now, now)
        n++
      }
    }
    sqlite
      .query(
        'INSERT INTO webhook_dispatch (name, last_event_rowid) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET last_event_rowid = excluded.last_event_rowid',
      )
      .run(NAME, rows.at(-1)!.rowid)
    return { created: n, more: rows.length === BATCH }
  })()
  return created
}
