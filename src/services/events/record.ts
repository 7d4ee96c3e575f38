import type { Db } from '../../db/client'
import { newId } from '../../lib/ids'

export const EVENT_TYPES = [
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'contact.unsubscribed',
  'campaign.complete',
  'reply.received',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface EventInput {
  clientId: string
  type: EventType
  occurredAt: number
  contactId?: string | null
  messageId?: string | null
  campaignId?: string | null
  journeyId?: string | null
  sequenceId?: string | null
  /** Event-specific members, already in webhook form (prefixed ids, ISO timestamps). */
  data: Record<string, unknown>
}

/**
 * Appends one event. Call it inside the transaction of the change that caused it. A prepared
 * statement rather than the query builder: the send queue writes one per message, and the
 * builder costs ~15x more per insert.
 */
export function recordEvent(db: Db, input: EventInput): string {
  const id = newId()
  db.$client
    .query(
      `INSERT INTO events (id, client_id, type, contact_id, message_id, campaign_id, journey_id, sequence_id, occurred_at, data)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .run(
      id,
      input.clientId,
      input.type,
      input.contactId ?? null,
      input.messageId ?? null,
      input.campaignId ?? null,
      input.journeyId ?? null,
      input.sequenceId ?? null,
      input.occurredAt,
      JSON.stringify(input.data),
    )
  return id
}
