import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { SEQUENCE_ENROLLMENT_STATUSES, SEQUENCE_STATUSES, SEQUENCE_STOP_REASONS } from '../../lib/enums'
import { clients } from './clients'

/**
 * A sequence: linear cold outreach, its steps as the API takes them
 * (`[{channel, template_id? | subject? + body_html? + body_text?, delay}]`, delay stored as ms
 * beside what was written) and its settings. Every step's email comes from one sender.
 */
export const sequences = sqliteTable(
  'sequences',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    status: text('status', { enum: SEQUENCE_STATUSES }).notNull().default('draft'),
    steps: text('steps', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    senderId: text('sender_id'),
    stopOnReply: integer('stop_on_reply', { mode: 'boolean' }).notNull().default(true),
    /** `{days: [1..7], start: "HH:MM", end: "HH:MM"}` in the contact's time zone, or null: any time. */
    sendingWindow: text('sending_window', { mode: 'json' }).$type<{
      days: number[]
      start: string
      end: string
    }>(),
    /** Messages a day this sequence's sender may be given by sequences, or null: no limit. */
    dailyLimit: integer('daily_limit'),
    activatedAt: integer('activated_at'),
    archivedAt: integer('archived_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('sequences_client_idx').on(t.clientId, t.id)],
)

/**
 * One contact's run through a sequence, and the executor's queue: an active run's next step
 * (`next_step`, an index into steps) is due at `next_run_at`. A step's message, the history
 * entry and the next due time are written in one transaction, so a crash neither loses nor
 * repeats a step. A contact enters a sequence once.
 */
export const sequenceEnrollments = sqliteTable(
  'sequence_enrollments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    sequenceId: text('sequence_id').notNull(),
    clientId: text('client_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: SEQUENCE_ENROLLMENT_STATUSES }).notNull().default('active'),
    /** The last step run (null before the first). */
    currentStep: integer('current_step'),
    nextStep: integer('next_step').notNull().default(0),
    nextRunAt: integer('next_run_at'),
    stopReason: text('stop_reason', { enum: SEQUENCE_STOP_REASONS }),
    /** `[{step, message_id, at}]`, or `{step, skipped, at}` for a step that could not send. */
    history: text('history', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    enteredAt: integer('entered_at').notNull(),
    endedAt: integer('ended_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('sequence_enrollments_contact_idx').on(t.sequenceId, t.contactId),
    index('sequence_enrollments_list_idx').on(t.sequenceId, t.seq),
    index('sequence_enrollments_by_contact_idx').on(t.contactId, t.status),
    index('sequence_enrollments_due_idx').on(t.sequenceId, t.status, t.nextRunAt),
  ],
)

/**
 * Which step queued an outbox message (messages.sequence_id names the sequence), and the
 * thread it continues: the outbox ids of the run's earlier emails, the last one first
 * (In-Reply-To, then References), and the subject of the thread's first email.
 */
export const sequenceMessages = sqliteTable(
  'sequence_messages',
  {
    messageSeq: integer('message_seq').primaryKey(),
    sequenceId: text('sequence_id').notNull(),
    step: integer('step').notNull(),
    /** Outbox ids of the earlier emails of the run, oldest first. */
    thread: text('thread', { mode: 'json' }).$type<string[]>().notNull(),
  },
  (t) => [index('sequence_messages_step_idx').on(t.sequenceId, t.step)],
)

/** Messages sequences queued per sender and UTC day: the daily limit's count. */
export const sequenceDailyCounts = sqliteTable(
  'sequence_daily_counts',
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

export type SequenceRow = typeof sequences.$inferSelect
export type SequenceEnrollmentRow = typeof sequenceEnrollments.$inferSelect

/** Who a chunked enrollment enters: the enroll call's contact ids, segment rules and list. */
export interface SequenceAudience {
  contact_ids: string[]
  /** The segment's rules as they were at the call (a later edit of the segment does not change it). */
  segment: { match: 'all' | 'any'; rule_groups: unknown[] } | null
  list_id: string | null
}

/**
 * A large enrollment (over the enroll call's limit) entered in chunks of contacts by the
 * sequence executor, between due steps: each chunk is one short transaction instead of one
 * that holds the write lock for the whole audience. Only contacts that existed at the call
 * (seq ≤ max_contact_seq) are considered; cursor_seq is how far it got, so a restart carries on.
 */
export const sequenceEnrollJobs = sqliteTable('sequence_enroll_jobs', {
  id: text('id').primaryKey(),
  sequenceId: text('sequence_id').notNull(),
  clientId: text('client_id').notNull(),
  audience: text('audience', { mode: 'json' }).$type<SequenceAudience>().notNull(),
  maxContactSeq: integer('max_contact_seq').notNull(),
  cursorSeq: integer('cursor_seq').notNull().default(0),
  /** When each run's first step is due (the call's time plus the first step's delay). */
  firstRunAt: integer('first_run_at').notNull(),
  /** The call's time: segment rules relative to now are read at it. */
  enteredAt: integer('entered_at').notNull(),
  createdAt: integer('created_at').notNull(),
})

export type SequenceEnrollJobRow = typeof sequenceEnrollJobs.$inferSelect
