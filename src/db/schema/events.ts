import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The event log: written in the same transaction as the state change that caused it, then
 * fanned out to webhooks. `data` holds the event-specific members (DESIGN.md §8).
 */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    type: text('type').notNull(),
    contactId: text('contact_id'),
    messageId: text('message_id'),
    campaignId: text('campaign_id'),
    journeyId: text('journey_id'),
    sequenceId: text('sequence_id'),
    occurredAt: integer('occurred_at').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    index('events_contact_type_idx').on(t.contactId, t.type, t.occurredAt),
    index('events_client_type_idx').on(t.clientId, t.type, t.occurredAt),
    index('events_campaign_type_idx').on(t.campaignId, t.type),
  ],
)

export type EventRow = typeof events.$inferSelect
