import { integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Token buckets that several processes on one database share (API keys' tiers, sign-in and other
 * per-address limits, the instance's send rate). A process takes a few tokens at a time and
 * spends them itself, so most requests do not touch this table.
 */
export const rateBuckets = sqliteTable('rate_buckets', {
  key: text('key').primaryKey(),
  /** Tokens left at `at`; refilled from there at the bucket's rate, up to its burst. */
  tokens: real('tokens').notNull(),
  at: integer('at').notNull(),
  /** What the last take granted (read back in the same statement). */
  granted: real('granted').notNull(),
})

/**
 * Sends counted per window that several processes share: a recipient domain's minute, a
 * client's hour, a warming domain's day. `start` is the window's start; old windows are deleted.
 */
export const sendWindows = sqliteTable(
  'send_windows',
  {
    key: text('key').notNull(),
    start: integer('start').notNull(),
    count: integer('count').notNull(),
    /** What the last reservation granted (read back in the same statement). */
    granted: integer('granted').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.start] })],
)

/**
 * Which process delivers to a webhook endpoint, until when: one process at a time holds an
 * endpoint's lane, so its events go out in order even with several processes.
 */
export const webhookLanes = sqliteTable('webhook_lanes', {
  webhookId: text('webhook_id').primaryKey(),
  holder: text('holder').notNull(),
  until: integer('until').notNull(),
})
