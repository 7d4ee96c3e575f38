import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** An inbound reply tied back to the message it answers (VERP reply+<token>@ or In-Reply-To). */
export const replies = sqliteTable(
  'replies',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    messageId: text('message_id'),
    campaignId: text('campaign_id'),
    journeyId: text('journey_id'),
    sequenceId: text('sequence_id'),
    contactId: text('contact_id'),
    fromAddress: text('from_address').notNull(),
    subject: text('subject'),
    snippet: text('snippet').notNull(),
    bodyText: text('body_text'),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [
    index('replies_client_idx').on(t.clientId, t.id),
    index('replies_message_idx').on(t.messageId),
    // A contact's replies: its erasure and access export, the API's contact_id filter.
    index('replies_contact_idx').on(t.contactId),
  ],
)

export type ReplyRow = typeof replies.$inferSelect
