import type { Database } from 'bun:sqlite'
import { perConnection } from './prepared'

// The event log's writes and the fan-out's reads by `seq`.
//
// Why `seq` and not rowid: fan-out reads events past a high-water mark, so it must never see a
// number commit after a higher one was already read. A rowid (or a Postgres sequence/identity)
// is handed out at insert time, and with more than one writer process (several Herald
// processes on one PostgreSQL) a transaction holding a lower id can commit after the mark
// moved past a higher one, and its event would never be delivered. `seq` comes from a one-row
// counter updated in the event's own transaction: the counter row stays locked (SQLite: the
// write lock; Postgres: the row lock) until that transaction commits or rolls back, so the next
// writer can only take seq+1 afterwards. Numbers are thus committed in order; a rollback leaves
// a harmless gap.

export interface EventInsert {
  id: string
  clientId: string
  type: string
  contactId: string | null
  messageId: string | null
  campaignId: string | null
  journeyId: string | null
  sequenceId: string | null
  occurredAt: number
  /** Already JSON text. */
  data: string
}

/** What fan-out needs of an event. */
export interface EventHead {
  seq: number
  id: string
  client_id: string
  type: string
}

/** What a webhook body is built from. */
export interface EventBody {
  id: string
  type: string
  occurred_at: number
  data: string
}

const statements = perConnection((sqlite: Database) => ({
  nextSeq: sqlite.prepare<{ last_seq: number }, []>(
    'UPDATE event_sequence SET last_seq = last_seq + 1 WHERE id = 1 RETURNING last_seq',
  ),
  insert: sqlite.prepare(
    `INSERT INTO events (id, seq, client_id, type, contact_id, message_id, campaign_id, journey_id, sequence_id, occurred_at, data)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`,
  ),
  after: sqlite.prepare<EventHead, [number, number]>(
    'SELECT seq, id, client_id, type FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2',
  ),
  body: sqlite.prepare<EventBody, [string]>('SELECT id, type, occurred_at, data FROM events WHERE id = ?1'),
}))

/**
 * Appends one event with the next `seq`. Call it inside the transaction of the change that
 * caused it (the counter stays locked until that commits). Returns the seq.
 */
export async function appendEvent(sqlite: Database, e: EventInsert): Promise<number> {
  const s = statements(sqlite)
  const next = await s.nextSeq.get()
  if (!next) throw new Error('event_sequence has no row (migration 0009 creates it)')
  await s.insert.run(
    e.id,
    next.last_seq,
    e.clientId,
    e.type,
    e.contactId,
    e.messageId,
    e.campaignId,
    e.journeyId,
    e.sequenceId,
    e.occurredAt,
    e.data,
  )
  return next.last_seq
}

/** Up to `limit` events committed after `seq`, in seq order. */
export async function eventsAfter(sqlite: Database, seq: number, limit: number): Promise<EventHead[]> {
  return await statements(sqlite).after.all(seq, limit)
}

/** One event's body members, or null when it no longer exists. */
export async function eventBody(sqlite: Database, id: string): Promise<EventBody | null> {
  return await statements(sqlite).body.get(id)
}
