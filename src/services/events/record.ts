import { appendEvent } from '../../db/events'
import type { EventRecorded, HookedDb } from '../../hooks'
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

/** An event to write: what event.recorded carries, but its id, of one of the known types. */
export interface EventInput extends Omit<EventRecorded, 'id' | 'type'> {
  type: EventType
}

/**
 * Appends one event with the next `seq` (src/db/events.ts) and fires event.recorded. Call it
 * inside the transaction of the change that caused it. Prepared statements rather than the query
 * builder: the send queue writes one per message, and the builder costs ~15x more per insert.
 */
export async function recordEvent({ db, hooks }: HookedDb, input: EventInput): Promise<string> {
  const id = newId()
  await appendEvent(db, {
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
  await hooks.eventRecorded.trigger({ id, ...input })
  return id
}
