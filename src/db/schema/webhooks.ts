import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { DELIVERY_STATUSES, DISABLED_REASONS } from '../../lib/enums'
import { clients } from './clients'

/**
 * A webhook endpoint. Signing secrets are stored encrypted; after a rotation the previous one
 * keeps signing alongside until `previous_secret_expires_at`.
 */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    url: text('url').notNull(),
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    active: integer('active', { mode: 'boolean' }).notNull(),
    disabledReason: text('disabled_reason', { enum: DISABLED_REASONS }),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    /** Set at the first failed attempt after a success; five days of failing disables. */
    failingSince: integer('failing_since'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhooks_client_idx').on(t.clientId, t.id)],
)

/**
 * The outbox: one row per (event, webhook). `next_attempt_at` is when it is due, or while
 * `sending` the end of the worker's lease. Test deliveries carry their own payload.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    clientId: text('client_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    test: integer('test', { mode: 'boolean' }).notNull().default(false),
    payload: text('payload'),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    completedAt: integer('completed_at'),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id),
    // The worker's claim: one endpoint's due rows, oldest first, by index seek (not a backlog scan).
    index('webhook_deliveries_claim_idx').on(t.webhookId, t.status, t.nextAttemptAt, t.id),
  ],
)

/** Every attempt, logged: HTTP status (null when none came back), duration, response excerpt. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    attemptedAt: integer('attempted_at').notNull(),
    status: integer('status'),
    durationMs: integer('duration_ms').notNull(),
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id)],
)

/** Fan-out high-water mark: the last `events.seq` turned into deliveries. One row, `events`. */
export const webhookDispatch = sqliteTable('webhook_dispatch', {
  name: text('name').primaryKey(),
  lastEventSeq: integer('last_event_seq').notNull(),
})

export type WebhookRow = typeof webhooks.$inferSelect
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect
