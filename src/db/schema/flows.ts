import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { FLOW_END_REASONS, FLOW_ENROLLMENT_STATUSES, FLOW_KINDS } from '../../lib/enums'

// The runtime of the one flow engine. A flow is a journey (a graph the API takes as nodes) or a
// sequence (its steps compiled into a line of send and wait nodes); both run here.

/**
 * One contact's pass through a flow: where it is, how it ended, and the nodes it passed
 * (`history`, a JSON array appended by each step). `seq` orders them (newest first in the API)
 * and keys `flow_runs`.
 */
export const flowEnrollments = sqliteTable(
  'flow_enrollments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    flowKind: text('flow_kind', { enum: FLOW_KINDS }).notNull(),
    flowId: text('flow_id').notNull(),
    clientId: text('client_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: FLOW_ENROLLMENT_STATUSES }).notNull().default('active'),
    currentNode: text('current_node'),
    endReason: text('end_reason', { enum: FLOW_END_REASONS }),
    history: text('history', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    enteredAt: integer('entered_at').notNull(),
    endedAt: integer('ended_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('flow_enrollments_flow_idx').on(t.flowId, t.seq),
    index('flow_enrollments_contact_idx').on(t.flowId, t.contactId, t.status),
    index('flow_enrollments_status_idx').on(t.flowId, t.status, t.endReason),
    index('flow_enrollments_by_contact_idx').on(t.contactId, t.status),
    // One active pass per contact and flow, whichever process enters it: an entry racing another
    // process's waits for its commit and then enters no one twice.
    uniqueIndex('flow_enrollments_active_idx')
      .on(t.flowId, t.contactId)
      .where(sql`status = 'active'`),
  ],
)

/**
 * The executor's queue: each active enrollment's next step, due at `next_run_at`. A batch of
 * steps is written in one transaction and no row is held between passes (`claimed` stays 0): a
 * crash rolls back the batch under way, and its runs are still due. A `wait_for_event` step waits here
 * with `wait_event` set until the event or its timeout.
 */
export const flowRuns = sqliteTable(
  'flow_runs',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    enrollmentSeq: integer('enrollment_seq').notNull(),
    flowId: text('flow_id').notNull(),
    contactId: text('contact_id').notNull(),
    nodeId: text('node_id').notNull(),
    nextRunAt: integer('next_run_at').notNull(),
    claimed: integer('claimed').notNull().default(0),
    /** Set while waiting for an event (`email.opened`…) since `wait_since`. */
    waitEvent: text('wait_event'),
    waitSince: integer('wait_since'),
  },
  (t) => [
    uniqueIndex('flow_runs_enrollment_idx').on(t.enrollmentSeq),
    index('flow_runs_due_idx').on(t.flowId, t.nextRunAt),
    index('flow_runs_contact_idx').on(t.contactId),
  ],
)

/** How many enrollments passed each node, kept in the transaction of each step batch. */
export const flowNodeCounts = sqliteTable(
  'flow_node_counts',
  {
    flowId: text('flow_id').notNull(),
    nodeId: text('node_id').notNull(),
    passed: integer('passed').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.flowId, t.nodeId] })],
)

/** Who a chunked enrollment enters: named contacts, a segment's rules as they were, a list. */
export interface FlowAudience {
  contact_ids: string[]
  segment: { match: 'all' | 'any'; rule_groups: unknown[] } | null
  list_id: string | null
}

/**
 * A large enrollment entered in chunks by the flow worker after the enroll call answered: only
 * contacts that existed at the call (seq ≤ max_contact_seq) are considered, walked by seq;
 * cursor_seq is how far it got, so a restart carries on. Each chunk is one short transaction.
 */
export const flowEnrollJobs = sqliteTable('flow_enroll_jobs', {
  id: text('id').primaryKey(),
  flowId: text('flow_id').notNull(),
  clientId: text('client_id').notNull(),
  audience: text('audience', { mode: 'json' }).$type<FlowAudience>().notNull(),
  maxContactSeq: integer('max_contact_seq').notNull(),
  cursorSeq: integer('cursor_seq').notNull().default(0),
  /** When each entering run's first step is due. */
  firstRunAt: integer('first_run_at').notNull(),
  /** The call's time: segment rules relative to now are read at it. */
  enteredAt: integer('entered_at').notNull(),
  createdAt: integer('created_at').notNull(),
})

/** Messages flows with a daily limit queued per sender and UTC day. */
export const flowDailyCounts = sqliteTable(
  'flow_daily_counts',
  {
    clientId: text('client_id').notNull(),
    /** The sender's id, or `default` for the client's default sender. */
    senderKey: text('sender_key').notNull(),
    /** Days since 1970-01-01 (UTC). */
    day: integer('day').notNull(),
    queued: integer('queued').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.senderKey, t.day] })],
)

/**
 * The thread an email of a threading flow continues: the outbox ids of the run's earlier
 * emails, oldest first (In-Reply-To is the last, References all of them).
 */
export const messageThreads = sqliteTable('message_threads', {
  messageSeq: integer('message_seq').primaryKey(),
  thread: text('thread', { mode: 'json' }).$type<string[]>().notNull(),
})

export type FlowEnrollmentRow = typeof flowEnrollments.$inferSelect
