import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Analytics rollups: counters per client × UTC quarter-hour × channel ×
 * campaign/journey/sequence, added to in the same transaction that writes the message change
 * and its event (src/db/rollups.ts). Quarter-hours, not hours: every IANA zone's offset is a
 * multiple of 15 minutes (Asia/Kolkata +05:30, Asia/Kathmandu +05:45, Pacific/Chatham +12:45),
 * so hour, day and week buckets in any zone are exact sums of quarters. "No source" is stored
 * as '' (not NULL) so the key stays unique. Each funnel counter counts a message once (its
 * first open, click, reply…), in the quarter it happened.
 */
export const analyticsRollups = sqliteTable(
  'analytics_rollups',
  {
    clientId: text('client_id').notNull(),
    /** Start of the UTC quarter-hour, epoch ms. */
    bucket: integer('bucket').notNull(),
    channel: text('channel').notNull(),
    campaignId: text('campaign_id').notNull().default(''),
    journeyId: text('journey_id').notNull().default(''),
    sequenceId: text('sequence_id').notNull().default(''),
    sent: integer('sent').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    opened: integer('opened').notNull().default(0),
    machineOpened: integer('machine_opened').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
    replied: integer('replied').notNull().default(0),
    bounced: integer('bounced').notNull().default(0),
    unsubscribed: integer('unsubscribed').notNull().default(0),
    complained: integer('complained').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.clientId, t.bucket, t.channel, t.campaignId, t.journeyId, t.sequenceId] }),
    // One source's rows (a campaign's funnel over its whole life) without the client's others.
    index('analytics_rollups_source_idx').on(t.campaignId, t.journeyId, t.sequenceId, t.bucket),
    // The deliverability score's per-campaign breakdown, read from this index alone (covering).
    index('analytics_rollups_campaign_idx')
      .on(t.clientId, t.bucket, t.campaignId, t.sent, t.delivered, t.bounced, t.complained, t.unsubscribed)
      .where(sql`campaign_id <> ''`),
  ],
)

/**
 * The same counters per client × quarter-hour × channel, summed over sources: what the
 * client-wide reads (trends, the funnel without a source, the score, the alerts' window) sum,
 * a fraction of the rows of analytics_rollups. Written alongside it, in the same transaction.
 */
export const analyticsTotals = sqliteTable(
  'analytics_totals',
  {
    clientId: text('client_id').notNull(),
    bucket: integer('bucket').notNull(),
    channel: text('channel').notNull(),
    sent: integer('sent').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    opened: integer('opened').notNull().default(0),
    machineOpened: integer('machine_opened').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
    replied: integer('replied').notNull().default(0),
    bounced: integer('bounced').notNull().default(0),
    unsubscribed: integer('unsubscribed').notNull().default(0),
    complained: integer('complained').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.bucket, t.channel] })],
)

/**
 * Deliverability alerts: recorded when a client's complaint rate crosses 0.1 % or its bounce
 * rate 2 % over its last 1,000 sends, and when its campaigns were paused at 0.3 % complaints.
 * One open alert per client and kind; it is resolved when the rate falls back under.
 */
export const deliverabilityAlerts = sqliteTable(
  'deliverability_alerts',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    /** complaint_rate | bounce_rate | campaigns_paused */
    kind: text('kind').notNull(),
    level: text('level').notNull(),
    value: real('value').notNull(),
    threshold: real('threshold').notNull(),
    windowSends: integer('window_sends').notNull(),
    message: text('message').notNull(),
    campaignIds: text('campaign_ids', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at').notNull(),
    resolvedAt: integer('resolved_at'),
  },
  (t) => [
    index('deliverability_alerts_client_idx').on(t.clientId, t.id),
    // Open alerts only (a handful): the portal's banner asks for them on every page, and the
    // resolved history grows; newest first per client, or across clients for the agency.
    index('deliverability_alerts_open_idx')
      .on(t.clientId, t.id)
      .where(sql`resolved_at is null`),
    // Across clients ("All workspaces"): without it SQLite (no ANALYZE statistics) walks the
    // primary key newest first through every resolved alert to find the open ones.
    index('deliverability_alerts_open_all_idx')
      .on(t.id)
      .where(sql`resolved_at is null`),
  ],
)

/**
 * The warm-up of a sending domain: from its first send on (`started_at`), a daily cap grows on
 * a schedule (src/services/deliverability/warmup.ts). `day`/`sent` count the current UTC day's
 * sends, so a restart keeps the day's count.
 */
export const domainWarmups = sqliteTable('domain_warmups', {
  domainId: text('domain_id').primaryKey(),
  clientId: text('client_id').notNull(),
  domain: text('domain').notNull(),
  startedAt: integer('started_at').notNull(),
  day: integer('day').notNull().default(0),
  sent: integer('sent').notNull().default(0),
})

export type AnalyticsRollupRow = typeof analyticsRollups.$inferSelect
export type DeliverabilityAlertRow = typeof deliverabilityAlerts.$inferSelect
export type DomainWarmupRow = typeof domainWarmups.$inferSelect
