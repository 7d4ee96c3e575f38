import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { ENROLLMENT_STATUSES, EXIT_REASONS, JOURNEY_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * A journey: its graph is the `nodes` JSON as the API takes it. The trigger's
 * kind and reference are copied out of the graph at activation so the hooks (list joined,
 * contact created, events, the segment job) find the journeys they start with one index seek.
 */
export const journeys = sqliteTable(
  'journeys',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    status: text('status', { enum: JOURNEY_STATUSES }).notNull().default('draft'),
    nodes: text('nodes', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    allowReentry: integer('allow_reentry', { mode: 'boolean' }).notNull().default(false),
    /** manual | segment_entered | list_joined | event | contact_created (set at activation). */
    triggerKind: text('trigger_kind'),
    /** The list, segment or campaign the trigger names, if any. */
    triggerRef: text('trigger_ref'),
    /** An `event` trigger's event type (`email.opened`…). */
    triggerEvent: text('trigger_event'),
    activatedAt: integer('activated_at'),
    archivedAt: integer('archived_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('journeys_client_idx').on(t.clientId, t.id),
    index('journeys_trigger_idx').on(t.status, t.triggerKind, t.triggerRef),
  ],
)

/**
 * One contact's pass through a journey: where it is, how it ended, and the nodes it passed
 * (`history`, a JSON array of `{node, at, message_id?, ...}` appended by each step). `seq`
 * orders them (newest first in the API) and keys `journey_runs`.
 */
export const journeyEnrollments = sqliteTable(
  'journey_enrollments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    journeyId: text('journey_id').notNull(),
    clientId: text('client_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: ENROLLMENT_STATUSES }).notNull().default('active'),
    currentNode: text('current_node'),
    exitReason: text('exit_reason', { enum: EXIT_REASONS }),
    history: text('history', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    enteredAt: integer('entered_at').notNull(),
    endedAt: integer('ended_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('journey_enrollments_journey_idx').on(t.journeyId, t.seq),
    index('journey_enrollments_contact_idx').on(t.journeyId, t.contactId, t.status),
    index('journey_enrollments_status_idx').on(t.journeyId, t.status, t.exitReason),
    index('journey_enrollments_by_contact_idx').on(t.contactId, t.status),
  ],
)

/**
 * The executor's queue: each active enrollment's next step, due at `next_run_at`. A claim
 * sets `claimed` and moves `next_run_at` to the lease's end, so a row held by a process that
 * died is due again when the lease runs out (and at once on the next start). A
 * `wait_for_event` step waits here with `wait_event` set until the event or its timeout.
 */
export const journeyRuns = sqliteTable(
  'journey_runs',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    enrollmentSeq: integer('enrollment_seq').notNull(),
    journeyId: text('journey_id').notNull(),
    contactId: text('contact_id').notNull(),
    nodeId: text('node_id').notNull(),
    nextRunAt: integer('next_run_at').notNull(),
    claimed: integer('claimed').notNull().default(0),
    /** Set while waiting for an event (`email.opened`…) since `wait_since`. */
    waitEvent: text('wait_event'),
    waitSince: integer('wait_since'),
  },
  (t) => [
    uniqueIndex('journey_runs_enrollment_idx').on(t.enrollmentSeq),
    index('journey_runs_due_idx').on(t.journeyId, t.nextRunAt),
    index('journey_runs_contact_idx').on(t.contactId),
  ],
)

/** How many enrollments passed each node, kept in the transaction of each step batch. */
export const journeyNodeCounts = sqliteTable(
  'journey_node_counts',
  {
    journeyId: text('journey_id').notNull(),
    nodeId: text('node_id').notNull(),
    passed: integer('passed').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.journeyId, t.nodeId] })],
)

/**
 * The members of a `segment_entered` journey's segment as last seen: the segment job enrolls
 * those who match now and were not seen (newly matching), and forgets those who left.
 */
export const journeySegmentSeen = sqliteTable(
  'journey_segment_seen',
  {
    journeyId: text('journey_id').notNull(),
    contactId: text('contact_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.journeyId, t.contactId] })],
)

export type JourneyRow = typeof journeys.$inferSelect
export type EnrollmentRow = typeof journeyEnrollments.$inferSelect
export type JourneyRunRow = typeof journeyRuns.$inferSelect

/**
 * A large enrollment from a segment, done in chunks by the journey worker after the enroll call
 * answered: the segment's rules as they were, the contacts that existed then (seq up to
 * `max_contact_seq`), and how far the chunks got (`cursor_seq`). Each chunk is one transaction.
 */
export const journeyEnrollJobs = sqliteTable('journey_enroll_jobs', {
  id: text('id').primaryKey(),
  journeyId: text('journey_id').notNull(),
  match: text('match').notNull(),
  ruleGroups: text('rule_groups', { mode: 'json' }).$type<unknown[]>().notNull(),
  maxContactSeq: integer('max_contact_seq').notNull(),
  cursorSeq: integer('cursor_seq').notNull().default(0),
  enteredAt: integer('entered_at').notNull(),
  createdAt: integer('created_at').notNull(),
})

export type EnrollJobRow = typeof journeyEnrollJobs.$inferSelect
