// The row the audience copy queues, shared by the outbox (outbox.ts) and its PostgreSQL twin.

/** One message of a campaign's audience copy. */
export interface CampaignMessageInsert {
  id: string
  clientId: string
  campaignId: string
  contactId: string
  channel: string
  to: string
  now: number
  /** When it may be sent: now, or later (held for an A/B decision, a recipient's local hour). */
  due: number
}
