import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { DEFER_REASONS, FLOW_KINDS, MESSAGE_STATUSES } from '../../lib/enums'

/**
 * The send queue's outbox. A row is claimed with a lease (status `sending`,
 * `next_attempt_at` = lease end) and its outcome written in one transaction with its event.
 * `seq` is the rowid so claims walk the queue in insertion order through an index.
 * The first open/click times make per-contact unique counts a single-row check.
 */
export const messages = sqliteTable(
  'messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    clientId: text('client_id').notNull(),
    campaignId: text('campaign_id'),
    /** The flow that queued the message (`journey`, `sequence`), its id and the send node. */
    sourceKind: text('source_kind', { enum: FLOW_KINDS }),
    sourceId: text('source_id'),
    sourceStep: text('source_step'),
    contactId: text('contact_id').notNull(),
    channel: text('channel').notNull(),
    to: text('to_address').notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull().default('queued'),
    skipReason: text('skip_reason'),
    provider: text('provider'),
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    /**
     * The sending limit (`warmup`, `throttle`, `hourly_cap`) that last deferred it, written with the
     * deferral; cleared when it goes back to the queue for another reason. Read only while queued.
     */
    deferReason: text('defer_reason', { enum: DEFER_REASONS }),
    /** A campaign's A/B variant (index into campaigns.variants); null for the rest until decided. */
    variant: integer('variant'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
    deliveredAt: integer('delivered_at'),
    openedAt: integer('opened_at'),
    /** First open by a mail privacy proxy (kept apart from human opens). */
    machineOpenedAt: integer('machine_opened_at'),
    clickedAt: integer('clicked_at'),
    bouncedAt: integer('bounced_at'),
    repliedAt: integer('replied_at'),
    unsubscribedAt: integer('unsubscribed_at'),
    /** First spam complaint (ARF report) about this message (analytics and the complaint rate). */
    complainedAt: integer('complained_at'),
    /** Every fetch of the open pixel and every tracked click, the repeats that make no event included. */
    opensCount: integer('opens_count').notNull().default(0),
    clicksCount: integer('clicks_count').notNull().default(0),
  },
  (t) => [
    uniqueIndex('messages_id_idx').on(t.id),
    uniqueIndex('messages_campaign_contact_idx')
      .on(t.campaignId, t.contactId)
      .where(sql`campaign_id IS NOT NULL`),
    // The campaign claim walks due messages in order: messages held for an A/B decision or a
    // recipient's local hour wait at the end of the range instead of being scanned past. `seq`
    // ends it so the claim's order (due time, then seq) is the index's: SQLite keys every index
    // entry by rowid anyway, but PostgreSQL without it sorted every due message at each claim.
    index('messages_campaign_due_idx').on(t.campaignId, t.status, t.nextAttemptAt, t.seq),
    // A flow's claims (due order) and per-node stats; the transactional claim gets its own
    // partial index so it never walks the (campaign_id IS NULL) flow messages.
    index('messages_flow_due_idx')
      .on(t.sourceId, t.status, t.nextAttemptAt)
      .where(sql`source_id IS NOT NULL`),
    index('messages_transactional_idx')
      .on(t.status, t.nextAttemptAt)
      .where(sql`campaign_id IS NULL AND source_id IS NULL`),
    index('messages_client_idx').on(t.clientId, t.id),
    index('messages_contact_idx').on(t.contactId),
    index('messages_provider_id_idx').on(t.providerMessageId),
    // In-flight rows only (the condition must match the queries' exactly for SQLite to use it):
    // lease expiry and crash recovery find them without scanning the outbox.
    index('messages_inflight_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'sending'`),
    // Messages held back by a sending limit, for a campaign's `deferred` (small: only those waiting).
    index('messages_deferred_idx')
      .on(t.campaignId, t.deferReason, t.nextAttemptAt)
      .where(sql`status = 'queued' AND defer_reason IS NOT NULL`),
  ],
)

/**
 * What of a message has made its one event (and webhook delivery): `open` (the reader's first
 * open), `open:machine` (a privacy proxy's) and each clicked link's URL, up to a bound. A later
 * hit on the same target is only counted on the message.
 */
export const messageFirstHits = sqliteTable(
  'message_first_hits',
  {
    messageSeq: integer('message_seq').notNull(),
    target: text('target').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageSeq, t.target] })],
)

/** What was sent, for the capture mailbox and GET /messages/{id}. Bodies are kept for capture and simulator. */
export const messageContents = sqliteTable('message_contents', {
  messageSeq: integer('message_seq').primaryKey(),
  subject: text('subject'),
  bodyHtml: text('body_html'),
  bodyText: text('body_text'),
  headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
})

/**
 * What a message outside any campaign renders (a transactional or test send): a template, or
 * inline content, from a sender, with extra variables. Campaign messages read their campaign.
 */
export const messagePayloads = sqliteTable('message_payloads', {
  messageSeq: integer('message_seq').primaryKey(),
  templateId: text('template_id'),
  subject: text('subject'),
  bodyHtml: text('body_html'),
  bodyText: text('body_text'),
  senderId: text('sender_id'),
  variables: text('variables', { mode: 'json' }).$type<Record<string, unknown>>(),
})

export type MessageRow = typeof messages.$inferSelect
export type MessagePayloadRow = typeof messagePayloads.$inferSelect
