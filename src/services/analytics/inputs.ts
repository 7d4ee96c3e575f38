import { type Static, Type as t } from '@sinclair/typebox'
import { CAMPAIGN_CHANNELS } from '../../lib/enums'
import { idRef, strict } from '../verbs/schemas'

// What the analytics verbs take: one schema per input, shared by every door (query members).

export const METRICS = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'replied',
  'bounced',
  'unsubscribed',
  'complained',
] as const
export type Metric = (typeof METRICS)[number]
export const INTERVALS = ['hour', 'day', 'week'] as const

const DateOrDateTime = t.String({
  maxLength: 40,
  description:
    'A date (YYYY-MM-DD, a whole local day) or an ISO 8601 date-time. Counts are kept per quarter-hour, so a date-time edge widens to its quarter-hour (from rounds down, to rounds up); the answer echoes the window used.',
})

/** The window and filters every analytics read takes. */
const windowMembers = {
  client_id: t.Optional(t.String({ description: 'Required with a platform-wide key' })),
  from: t.Optional(DateOrDateTime),
  to: t.Optional(
    t.String({
      ...DateOrDateTime,
      description:
        'Inclusive: a date counts its whole day; a date-time widens to the end of its quarter-hour. Alone, the window is the 30 days ending with it',
    }),
  ),
  timezone: t.Optional(
    t.String({ maxLength: 64, description: 'IANA time zone of dates and buckets (default UTC)' }),
  ),
  campaign_id: t.Optional(idRef('campaign')),
  journey_id: t.Optional(idRef('journey')),
  sequence_id: t.Optional(idRef('sequence')),
  channel: t.Optional(t.Union(CAMPAIGN_CHANNELS.map((c) => t.Literal(c)))),
}

export const FunnelInput = t.Object(windowMembers, strict)
export type FunnelQuery = Static<typeof FunnelInput>

export const TrendsInput = t.Object(
  {
    ...windowMembers,
    metric: t.Optional(
      t.Union(
        METRICS.map((m) => t.Literal(m)),
        { default: 'sent' },
      ),
    ),
    interval: t.Optional(
      t.Union(
        INTERVALS.map((i) => t.Literal(i)),
        { default: 'day' },
      ),
    ),
  },
  strict,
)
export type TrendsQuery = Static<typeof TrendsInput>

export const RebuildInput = t.Object(
  { client_id: t.Optional(t.String({ description: 'Only this client (default: every client)' })) },
  strict,
)
