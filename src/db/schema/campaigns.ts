import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * A campaign and its running totals. The counters are updated in the same transaction as the
 * events that cause them, so `GET /stats` is one row read even for a million recipients.
 * `snapshot_*` track the audience copy into the outbox, done in chunks after launch so that
 * launch returns at once and a crash resumes the copy where it stopped.
 */
export const campaigns = sqliteTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull().default('draft'),
    channel: text('channel', { enum: CAMPAIGN_CHANNELS }).notNull().default('email'),
    subject: text('subject'),
    bodyHtml: text('body_html'),
    bodyText: text('body_text'),
    templateId: text('template_id'),
    listId: text('list_id'),
    segmentId: text('segment_id'),
    senderId: text('sender_id'),
    scheduledAt: integer('scheduled_at'),
    /** `HH:MM`: each recipient gets the campaign at that wall-clock time in their own zone. */
    sendAtLocal: text('send_at_local'),
    /** An A/B test's contents (2 to 5), in order: a message's `variant` indexes this. */
    variants: text('variants', { mode: 'json' }).$type<CampaignVariant[]>(),
    abTest: text('ab_test', { mode: 'json' }).$type<AbTestSettings>(),
    /** When the test share was released; the winner is decided `ab_test.duration` later. */
    abStartedAt: integer('ab_started_at'),
    /** The decision, once made (exactly once): the winning index, when, why, the figures then. */
    abDecision: text('ab_decision', { mode: 'json' }).$type<AbDecision>(),
    totalRecipients: integer('total_recipients'),
    failureReason: text('failure_reason'),
    /** Audience copy: last contact id copied, and done flag. Null cursor = not started. */
    snapshotCursor: text('snapshot_cursor'),
    snapshotDone: integer('snapshot_done', { mode: 'boolean' }).notNull().default(false),
    /** Contacts and memberships newer than this are not part of the audience. */
    launchedAt: integer('launched_at'),
    startedAt: integer('started_at'),
    completedAt: integer('completed_at'),
    sent: integer('sent').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    opened: integer('opened').notNull().default(0),
    machineOpened: integer('machine_opened').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
    replied: integer('replied').notNull().default(0),
    bounced: integer('bounced').notNull().default(0),
    unsubscribed: integer('unsubscribed').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('campaigns_client_idx').on(t.clientId, t.id),
    index('campaigns_status_idx').on(t.status, t.scheduledAt),
  ],
)

export type CampaignRow = typeof campaigns.$inferSelect

/**
 * An A/B campaign's running figures per variant, kept with the campaign's own counters in the
 * same transactions, so per-variant stats are a few rows read, not a pass over the outbox.
 */
export const campaignVariantCounts = sqliteTable(
  'campaign_variant_counts',
  {
    campaignId: text('campaign_id').notNull(),
    variant: integer('variant').notNull(),
    sent: integer('sent').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    opened: integer('opened').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.variant] })],
)

export interface CampaignVariant {
  name: string
  subject?: string | null
  template_id?: string | null
  body_html?: string | null
  body_text?: string | null
}

export interface AbTestSettings {
  /** The share of the audience that tests the variants (0 < share < 1). */
  test_share: number
  metric: 'open_rate' | 'click_rate'
  /** ISO 8601 duration as given (`PT4H`), and in milliseconds. */
  duration: string
  duration_ms: number
}

export interface AbDecision {
  winner: number
  decided_at: number
  /** `metric` when the test ran its course, `manual` when an operator chose early. */
  reason: 'metric' | 'manual'
  figures: { sent: number; opened: number; clicked: number; open_rate: number; click_rate: number }[]
}
