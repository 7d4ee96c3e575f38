import type { Db } from '../../db/client'
import { events } from '../../db/schema'
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

/** Appends one event. Call it inside the transaction of the change that caused it. */
export function recordEvent(db: Db, input: EventInput): string {
  const id = newId()
  db.insert(events)
    .values({
      id,
      clientId: input.clientId,
      type: input.type,
      contactId: input.contactId ?? null,
      messageId: input.messageId ?? null,
      campaignId: input.campaignId ?? null,
      journeyId: input.journeyId ?? null,
      sequenceId: input.sequenceId ?? null,
      occurredAt: input.occurredAt,
      data: input.data,
    })
    .run()
  return id
}
