// The rows the outbox (outbox.ts) and its PostgreSQL twin take many at a time: the audience
// copy's messages, and a batch's sends and their contents.

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

/** A message the provider took: `delivered` when it reported delivery at once. */
export interface SentRow {
  seq: number
  provider: string
  providerMessageId: string | null
  delivered: boolean
}

/** What was sent, for the capture mailbox and GET /messages/{id}. */
export interface ContentRow {
  seq: number
  subject: string | null
  html: string | null
  text: string | null
  headers: Record<string, string>
}
