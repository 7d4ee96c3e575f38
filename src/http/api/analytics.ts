import { Type as t } from '@sinclair/typebox'
import { INTERVALS, METRICS } from '../../services/analytics/inputs'
import { analyticsFunnelVerb, analyticsTrendsVerb } from '../../services/analytics/verbs'
import { DateTime, dataOf, Nullable, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const windowMembers = {
  client_id: Uuid,
  from: t.String({ format: 'date-time', description: 'First instant of the window' }),
  to: t.String({ format: 'date-time', description: 'Last instant of the window (inclusive)' }),
  timezone: t.String({ description: 'IANA time zone of dates and buckets' }),
  campaign_id: Nullable(Uuid),
  journey_id: Nullable(Uuid),
  sequence_id: Nullable(Uuid),
  channel: Nullable(t.String()),
}

const FunnelStep = named(
  'FunnelStep',
  t.Object({
    name: t.Union(['sent', 'delivered', 'opened', 'clicked', 'replied'].map((n) => t.Literal(n))),
    count: t.Integer({ description: 'Messages that reached this step in the window (each once)' }),
    rate_from_previous: t.Number(),
    rate_from_sent: t.Number(),
  }),
)

const Funnel = named(
  'AnalyticsFunnel',
  t.Object({
    ...windowMembers,
    steps: t.Array(FunnelStep),
    machine_opened: t.Integer({ description: 'Opens by mail privacy proxies (not in opened)' }),
    bounced: t.Integer(),
    unsubscribed: t.Integer(),
    complained: t.Integer(),
  }),
)

const TrendPoint = named(
  'TrendPoint',
  t.Object({
    t: DateTime,
    local: t.String({
      description: 'Local start of the bucket: YYYY-MM-DD (day, week) or YYYY-MM-DDTHH:MM (hour)',
    }),
    value: t.Integer(),
  }),
)

const Trends = named(
  'AnalyticsTrends',
  t.Object({
    metric: t.Union(METRICS.map((m) => t.Literal(m))),
    interval: t.Union(INTERVALS.map((i) => t.Literal(i))),
    ...windowMembers,
    total: t.Integer(),
    points: t.Array(TrendPoint),
  }),
)

const tag = 'Analytics'
const WINDOW_QUERY = [
  'client_id',
  'from',
  'to',
  'timezone',
  'campaign_id',
  'journey_id',
  'sequence_id',
  'channel',
]

export const analyticsOperations = [
  route(analyticsFunnelVerb, {
    id: 'getAnalyticsFunnel',
    method: 'GET',
    path: '/api/v1/analytics/funnel',
    tag,
    summary: 'Funnel sent → delivered → opened → clicked → replied for a window (default: the last 30 days)',
    description:
      'Unique per message (its first open, click, reply); opens by mail privacy proxies are left out and reported as machine_opened. Read from rollups kept with the events, never from the event log. A platform-wide key must pass client_id.',
    query: WINDOW_QUERY,
    response: dataOf(Funnel),
  }),
  route(analyticsTrendsVerb, {
    id: 'getAnalyticsTrends',
    method: 'GET',
    path: '/api/v1/analytics/trends',
    tag,
    summary: 'One metric over time in hour, day or week buckets of a time zone, zero-filled',
    description:
      'Metrics: sent, delivered, opened, clicked, replied, bounced, unsubscribed, complained (default sent); interval hour, day or week (ISO weeks, Monday; default day). Bucket boundaries follow the IANA time zone, DST included. A platform-wide key must pass client_id.',
    query: ['metric', 'interval', ...WINDOW_QUERY],
    response: dataOf(Trends),
  }),
]
