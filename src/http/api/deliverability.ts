import { Type as t } from '@sinclair/typebox'
import { deliverabilityScoreVerb, listDeliverabilityAlertsVerb } from '../../services/deliverability/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Status = t.Union([t.Literal('ok'), t.Literal('warn'), t.Literal('bad')])

const Factor = named(
  'DeliverabilityFactor',
  t.Object({
    name: t.String({
      description:
        'bounce_rate, complaint_rate, authentication, unsubscribe_rate, engagement, list_hygiene, volume_consistency, alerts',
    }),
    value: Nullable(t.Number()),
    weight: t.Integer(),
    score: Nullable(t.Integer({ minimum: 0, maximum: 100 })),
    status: Status,
    advice: t.String(),
  }),
)

const Alert = named(
  'DeliverabilityAlert',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    kind: t.Union([t.Literal('complaint_rate'), t.Literal('bounce_rate'), t.Literal('campaigns_paused')]),
    level: t.Union([t.Literal('warn'), t.Literal('bad')]),
    active: t.Boolean(),
    value: t.Number({ description: 'The rate when recorded (last updated)' }),
    threshold: t.Number(),
    window_sends: t.Integer({ description: 'Sends in the window the rate was taken over' }),
    message: t.String(),
    campaign_ids: t.Array(Uuid, { description: 'Campaigns paused (campaigns_paused)' }),
    created_at: DateTime,
    resolved_at: Nullable(DateTime),
  }),
)

const Score = named(
  'DeliverabilityScore',
  t.Object({
    client_id: Uuid,
    score: t.Integer({ minimum: 0, maximum: 100 }),
    grade: t.Union(['A', 'B', 'C', 'D', 'F'].map((g) => t.Literal(g))),
    window_days: t.Integer(),
    computed_at: DateTime,
    scored_on: t.Union([t.Literal('all_factors'), t.Literal('authentication_only')]),
    note: Nullable(t.String()),
    totals: t.Object({
      sent: t.Integer(),
      delivered: t.Integer(),
      opened: t.Integer(),
      machine_opened: t.Integer(),
      clicked: t.Integer(),
      bounced: t.Integer(),
      complained: t.Integer(),
      unsubscribed: t.Integer(),
    }),
    factors: t.Array(Factor),
    domains: t.Array(
      named(
        'DomainAuthentication',
        t.Object({
          domain_id: Uuid,
          domain: t.String(),
          status: t.String(),
          dkim: t.Boolean(),
          spf: t.Boolean(),
          dmarc: t.Boolean(),
          checked_at: Nullable(DateTime),
        }),
      ),
    ),
    warmup: t.Array(
      named(
        'DomainWarmup',
        t.Object({
          domain_id: Uuid,
          domain: t.String(),
          started_at: DateTime,
          day: t.Integer(),
          daily_cap: Nullable(t.Integer()),
          sent_today: t.Integer(),
          complete: t.Boolean(),
          completes_on: t.String({ format: 'date' }),
        }),
      ),
    ),
    campaigns: t.Array(
      named(
        'CampaignDeliverability',
        t.Object({
          campaign_id: Uuid,
          name: t.String(),
          list_id: Nullable(Uuid),
          list_name: Nullable(t.String()),
          list_created_at: Nullable(DateTime),
          sent: t.Integer(),
          delivered: t.Integer(),
          bounced: t.Integer(),
          bounce_rate: t.Number(),
          complained: t.Integer(),
          complaint_rate: t.Number(),
          unsubscribed: t.Integer(),
        }),
      ),
    ),
    alerts: t.Array(Alert),
  }),
)

const tag = 'Deliverability'

export const deliverabilityOperations = [
  route(deliverabilityScoreVerb, {
    id: 'getDeliverabilityScore',
    method: 'GET',
    path: '/api/v1/deliverability/score',
    tag,
    summary: 'Deliverability score (0–100, grade A–F) with factors, advice and a per-campaign breakdown',
    description:
      'Over the last 30 days of rollups. A client with no sends is scored on authentication alone. A platform-wide key must pass client_id.',
    query: ['client_id'],
    response: dataOf(Score),
  }),
  route(listDeliverabilityAlertsVerb, {
    id: 'listDeliverabilityAlerts',
    method: 'GET',
    path: '/api/v1/deliverability/alerts',
    tag,
    summary:
      'Alerts: complaint rate ≥ 0.1 % or bounce rate ≥ 2 % over the last 1,000 sends, and campaigns paused at 0.3 % complaints',
    query: ['limit', 'cursor', 'client_id', 'active'],
    answer: 'as-is',
    response: pageOf(Alert),
  }),
]
