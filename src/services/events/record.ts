import type { Db } from '../../db/client'
import { appendEvent } from '../../db/events'
import { newId } from '../../lib/ids'
import { onJourneyEvent } from '../journeys/triggers'
import { onSequenceEvent } from '../sequences/stops'

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
 * Appends one event with the next `seq` (src/db/events.ts). Call it inside the transaction of
 * the change that caused it. Prepared statements rather than the query builder: the send queue
 * writes one per message, and the builder costs ~15x more per insert.
 */
export function recordEvent(db: Db, input: EventInput): string {
  const id = newId()
  appendEvent(db.$client, {
    id,
    clientId: input.clientId,
    type: input.type,
    contactId: input.contactId ?? null,
    messageId: input.messageId ?? null,
    campaignId: input.campaignId ?? null,
    journeyId: input.journeyId ?? null,
    sequenceId: input.sequenceId ?? null,
    occurredAt: input.occurredAt,
    data: JSON.stringify(input.data),
  })
  // Journeys listen to a few of these (waits for an event, event triggers, hard bounces).
  onJourneyEvent(db, input)
  // A reply, bounce or unsubscribe stops the contact's sequence runs.
  onSequenceEvent(db, input)
  return id
}
