import type { Database } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import { sql } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { postgresTransactionsOf } from './postgres/handle'
import { perConnection } from './prepared'
import { rawRows } from './raw'

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
     VALUES (?1, ?11, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
  ),
  after: sqlite.prepare<EventHead, [number, number]>(
    'SELECT seq, id, client_id, type FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2',
  ),
  body: sqlite.prepare<EventBody, [string]>('SELECT id, type, occurred_at, data FROM events WHERE id = ?1'),
}))

/** Either the store's connection or its drizzle db: callers have one or the other at hand. */
export type EventStore = Database | Db

const isDb = (s: EventStore): s is Db => 'select' in s

/** The bun:sqlite connection (SQLite): a drizzle db's client is the store's routed connection. */
const connectionOf = (s: EventStore): Database => (isDb(s) ? (s.$client as unknown as Database) : s)

/**
 * The drizzle db to run on (PostgreSQL). The PostgreSQL store's `sqlite` handle reaches only the
 * transaction the caller runs in; outside one, the store's db must be passed.
 */
function pgDbOf(s: EventStore): Db {
  if (isDb(s)) return s
  const tx = postgresTransactionsOf(s)?.current()
  if (!tx)
    throw new Error("events on PostgreSQL outside a transaction: pass the store's db, not its sqlite handle")
  return tx as unknown as Db
}

/** An event's columns but its seq, in the order both stores' inserts take them. */
const valuesOf = (e: EventInsert) =>
  [
    e.id,
    e.clientId,
    e.type,
    e.contactId,
    e.messageId,
    e.campaignId,
    e.journeyId,
    e.sequenceId,
    e.occurredAt,
    e.data,
  ] as const

/** The events of a batchedEvents scope on PostgreSQL, written when it ends. */
const pendingEvents = new AsyncLocalStorage<EventInsert[]>()

/**
 * Appends one event with the next `seq`. Call it inside the transaction of the change that
 * caused it (the counter stays locked until that commits). Inside batchedEvents on PostgreSQL
 * it is written when the scope ends, with the scope's other events.
 */
export async function appendEvent(store: EventStore, e: EventInsert): Promise<void> {
  if (DIALECT === 'postgres') {
    const pending = pendingEvents.getStore()
    if (pending) pending.push(e)
    else await appendPgEvents(pgDbOf(store), [e])
    return
  }
  const s = statements(connectionOf(store))
  const next = await s.nextSeq.get()
  if (!next) throw new Error('event_sequence has no row (a migration creates it)')
  await s.insert.run(...valuesOf(e), next.last_seq)
}

/**
 * Runs fn (inside a transaction); on PostgreSQL the events it appends are written in one
 * statement when it returns, in the order they were appended, instead of a round trip each (the
 * send queue's outcomes append one per message). On SQLite each is written at once, as always.
 */
export async function batchedEvents<T>(store: EventStore, fn: () => Promise<T>): Promise<T> {
  if (DIALECT !== 'postgres') return await fn()
  const pending: EventInsert[] = []
  const result = await pendingEvents.run(pending, fn)
  if (pending.length > 0) await appendPgEvents(pgDbOf(store), pending)
  return result
}

/**
 * One statement for any number of events: the counter moves by their count (its row stays locked
 * until the transaction ends) and they take its numbers in order. data is JSON text, cast from
 * text (Bun's client would encode a string bound to jsonb as a JSON string).
 */
async function appendPgEvents(db: Db, events: readonly EventInsert[]): Promise<void> {
  const n = events.length
  const rows = events.map(valuesOf)
  const written = await rawRows<{ n: string }>(
    db,
    sql`WITH next AS (UPDATE event_sequence SET last_seq = last_seq + ${n} WHERE id = 1 RETURNING last_seq)
      INSERT INTO events (id, seq, client_id, type, contact_id, message_id, campaign_id, journey_id, sequence_id, occurred_at, data)
      SELECT r->>0, next.last_seq - ${n} + b.n, r->>1, r->>2, r->>3, r->>4, r->>5, r->>6, r->>7, (r->>8)::bigint, (r->>9)::jsonb
      FROM next, jsonb_array_elements(${JSON.stringify(rows)}::text::jsonb) WITH ORDINALITY AS b(r, n)
      ORDER BY b.n
      RETURNING 1 AS n`,
  )
  if (written.length !== n) throw new Error('event_sequence has no row (the first migration creates it)')
}

/** Up to `limit` events committed after `seq`, in seq order. */
export async function eventsAfter(store: EventStore, seq: number, limit: number): Promise<EventHead[]> {
  if (DIALECT === 'postgres')
    return (
      await rawRows<EventHead & { seq: string }>(
        pgDbOf(store),
        sql`SELECT seq, id, client_id, type FROM events WHERE seq > ${seq} ORDER BY seq LIMIT ${limit}`,
      )
    ).map((r) => ({ ...r, seq: Number(r.seq) }))
  return await statements(connectionOf(store)).after.all(seq, limit)
}

/** One event's body members, or null when it no longer exists. */
export async function eventBody(store: EventStore, id: string): Promise<EventBody | null> {
  if (DIALECT === 'postgres') {
    // data back as JSON text, as SQLite stores it.
    const [r] = await rawRows<EventBody & { occurred_at: string }>(
      pgDbOf(store),
      sql`SELECT id, type, occurred_at, data::text AS data FROM events WHERE id = ${id}`,
    )
    return r ? { ...r, occurred_at: Number(r.occurred_at) } : null
  }
  return await statements(connectionOf(store)).body.get(id)
}
