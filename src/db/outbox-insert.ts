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
  /** The end of the lease the send was made in (the claimed row's next_attempt_at). */
  lease: number
  provider: string
  providerMessageId: string | null
  delivered: boolean
}

/** What sentMany wrote: the seqs still under their send's lease, and those it made delivered. */
export interface SentWritten {
  written: Set<number>
  nowDelivered: Set<number>
}

/** What was sent, for the capture mailbox and GET /messages/{id}. */
export interface ContentRow {
  seq: number
  subject: string | null
  html: string | null
  text: string | null
  headers: Record<string, string>
}
