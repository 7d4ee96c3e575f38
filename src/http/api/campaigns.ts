import { Type as t } from '@sinclair/typebox'
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES } from '../../lib/enums'
import { cancelCampaign, launchCampaign, pauseCampaign } from '../../services/campaigns/launch'
import {
  createCampaign,
  deleteCampaign,
  getCampaign,
  listCampaigns,
  updateCampaign,
} from '../../services/campaigns/manage'
import { campaignStats } from '../../services/campaigns/stats'
import {
  CreateQuery,
  DateTime,
  dataOf,
  IdRef,
  Name,
  Nullable,
  pageOf,
  pageQueryMembers,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Channel = t.Union(CAMPAIGN_CHANNELS.map((c) => t.Literal(c)))
const Status = t.Union(CAMPAIGN_STATUSES.map((s) => t.Literal(s)))

const Campaign = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  status: Status,
  subject: Nullable(t.String()),
  channel: Channel,
  template_id: Nullable(Uuid),
  list_id: Nullable(Uuid),
  segment_id: Nullable(Uuid),
  sender_id: Nullable(Uuid),
  body_html: Nullable(t.String()),
  body_text: Nullable(t.String()),
  scheduled_at: Nullable(DateTime),
  total_recipients: Nullable(t.Integer()),
  total_sent: Nullable(t.Integer()),
  skipped: t.Integer(),
  failure_reason: Nullable(t.String()),
  launched_at: Nullable(DateTime),
  completed_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
})

const CampaignInput = t.Object(
  {
    name: Name,
    subject: t.Optional(Nullable(t.String({ maxLength: 998 }))),
    channel: t.Optional(Channel),
    template_id: t.Optional(Nullable(IdRef)),
    list_id: t.Optional(Nullable(IdRef)),
    segment_id: t.Optional(Nullable(IdRef)),
    sender_id: t.Optional(Nullable(IdRef)),
    body_html: t.Optional(Nullable(t.String({ maxLength: 512 * 1024 }))),
    body_text: t.Optional(Nullable(t.String({ maxLength: 128 * 1024 }))),
    scheduled_at: t.Optional(Nullable(t.String({ format: 'date-time' }))),
  },
  strict,
)
const CampaignPatch = t.Partial(CampaignInput, strict)

const ListQuery = t.Object(
  {
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
    status: t.Optional(Status),
    search: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  },
  strict,
)

const Stats = t.Object({
  campaign_id: Uuid,
  status: Status,
  total_recipients: t.Integer(),
  sent: t.Integer(),
  delivered: t.Integer(),
  opened: t.Integer(),
  clicked: t.Integer(),
  replied: t.Integer(),
  bounced: t.Integer(),
  unsubscribed: t.Integer(),
  skipped: t.Integer(),
  failed: t.Integer(),
  machine_opened: t.Integer({ description: 'Opens by mail privacy proxies; not in opened or open_rate' }),
  open_rate: t.Number({ description: 'Unique opens / delivered' }),
  click_rate: t.Number({ description: 'Unique clicks / delivered' }),
})

const tag = 'Campaigns'

export const campaignOperations = [
  op({
    id: 'listCampaigns',
    method: 'GET',
    path: '/api/v1/campaigns',
    tag,
    auth: 'any',
    summary: 'List campaigns (filters: client_id, status, search on name)',
    query: ListQuery,
    response: pageOf(Campaign),
    handle: (ctx, { query }) => listCampaigns(ctx, query),
  }),
  op({
    id: 'createCampaign',
    method: 'POST',
    path: '/api/v1/campaigns',
    tag,
    auth: 'campaigns:write',
    summary: 'Create a campaign (draft)',
    description:
      'Audience from list_id or segment_id; content from template_id or inline subject/body_html/body_text (Liquid); sender from sender_id or the client’s first verified sender.',
    query: CreateQuery,
    body: CampaignInput,
    response: dataOf(Campaign),
    handle: (ctx, { body, query }) => ({ data: createCampaign(ctx, body, query.client_id) }),
  }),
  op({
    id: 'getCampaign',
    method: 'GET',
    path: '/api/v1/campaigns/{id}',
    tag,
    auth: 'any',
    summary: 'Get a campaign',
    response: dataOf(Campaign),
    handle: (ctx, { params }) => ({ data: getCampaign(ctx, params.id!) }),
  }),
  op({
    id: 'updateCampaign',
    method: 'PATCH',
    path: '/api/v1/campaigns/{id}',
    tag,
    auth: 'campaigns:write',
    summary: 'Update a draft, scheduled or paused campaign',
    body: CampaignPatch,
    response: dataOf(Campaign),
    handle: (ctx, { params, body }) => ({ data: updateCampaign(ctx, params.id!, body) }),
  }),
  op({
    id: 'deleteCampaign',
    method: 'DELETE',
    path: '/api/v1/campaigns/{id}',
    tag,
    auth: 'campaigns:write',
    destructive: true,
    summary: 'Delete a draft or paused campaign',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteCampaign(ctx, params.id!) }),
  }),
  op({
    id: 'launchCampaign',
    method: 'POST',
    path: '/api/v1/campaigns/{id}/launch',
    tag,
    auth: 'campaigns:launch',
    destructive: true,
    summary: 'Launch (or resume) a campaign; needs {"confirm": true}',
    description:
      'draft → scheduled when scheduled_at is ahead, else sending; scheduled → sending now; paused → sending (resumes where it stopped). Returns at once; the audience is copied into the send queue in the background.',
    body: t.Object({ confirm: t.Boolean({ description: 'Must be true' }) }, strict),
    response: dataOf(
      t.Object({ id: Uuid, status: Status, total_recipients: Nullable(t.Integer()), accepted: t.Boolean() }),
    ),
    handle: (ctx, { params, body }) => ({ data: launchCampaign(ctx, params.id!, body) }),
  }),
  op({
    id: 'pauseCampaign',
    method: 'POST',
    path: '/api/v1/campaigns/{id}/pause',
    tag,
    auth: 'campaigns:write',
    summary: 'Pause a sending or scheduled campaign (no new sends within a second)',
    response: dataOf(Campaign),
    handle: (ctx, { params }) => ({ data: pauseCampaign(ctx, params.id!) }),
  }),
  op({
    id: 'cancelCampaign',
    method: 'POST',
    path: '/api/v1/campaigns/{id}/cancel',
    tag,
    auth: 'campaigns:write',
    destructive: true,
    summary: 'Cancel a scheduled, sending or paused campaign; queued messages are dropped',
    response: dataOf(Campaign),
    handle: (ctx, { params }) => ({ data: cancelCampaign(ctx, params.id!) }),
  }),
  op({
    id: 'getCampaignStats',
    method: 'GET',
    path: '/api/v1/campaigns/{id}/stats',
    tag,
    auth: 'any',
    summary: 'Campaign statistics (unique opens and clicks per recipient; rates are fractions of delivered)',
    response: dataOf(Stats),
    handle: (ctx, { params }) => ({ data: campaignStats(ctx, params.id!) }),
  }),
]
