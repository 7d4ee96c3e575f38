import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * The event log: written in the same transaction as the state change that caused it, then
 * fanned out to webhooks. `data` holds the event-specific members. `seq` is the
 * commit order, taken from `event_sequence` in that same transaction (src/db/events.ts).
 */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    seq: integer('seq').notNull(),
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
    uniqueIndex('events_seq_idx').on(t.seq),
    index('events_contact_type_idx').on(t.contactId, t.type, t.occurredAt),
    index('events_client_type_idx').on(t.clientId, t.type, t.occurredAt),
    index('events_campaign_type_idx').on(t.campaignId, t.type),
  ],
)

/** The one-row counter `events.seq` is assigned from (row id 1; see src/db/events.ts). */
export const eventSequence = sqliteTable('event_sequence', {
  id: integer('id').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
})

export type EventRow = typeof events.$inferSelect
