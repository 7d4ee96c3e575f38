// The rollups' counters and buckets (rollups.ts), in a module of their own so that the
// PostgreSQL statements (postgres/rollups.ts) can use them without importing rollups.ts back.

export const ROLLUP_COUNTERS = [
  'sent',
  'delivered',
  'opened',
  'machine_opened',
  'clicked',
  'replied',
  'bounced',
  'unsubscribed',
  'complained',
] as const
export type RollupCounter = (typeof ROLLUP_COUNTERS)[number]
export type RollupDeltas = Partial<Record<RollupCounter, number>>
export type RollupTotals = Record<RollupCounter, number>

/** A rollup bucket is one UTC quarter-hour. */
export const QUARTER_MS = 900_000
export const quarterOf = (ms: number) => ms - (((ms % QUARTER_MS) + QUARTER_MS) % QUARTER_MS)

/** Which message a count belongs to: its client, channel and source. */
/** A message's source as the outbox stores it: a campaign, or a flow (journey, sequence). */
export interface RollupSource {
  clientId: string
  channel: string
  campaignId: string | null
  sourceKind: 'journey' | 'sequence' | null
  sourceId: string | null
}

/** Narrows a read to one source or channel ('' = the key's "none"). */
export interface RollupFilter {
  campaignId?: string
  journeyId?: string
  sequenceId?: string
  channel?: string
}

/** A campaign's totals over a window: the deliverability breakdown (campaignTotals). */
export type CampaignTotals = Pick<
  RollupTotals,
  'sent' | 'delivered' | 'bounced' | 'complained' | 'unsubscribed'
> & {
  campaign_id: string
}
