import { Type as t } from '@sinclair/typebox'
import { EVENT_TYPES } from '../../services/events/record'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Nullable,
  PageQuery,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { listDeliveries, retryDelivery, testWebhook } from '../../services/webhooks/deliveries'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  revealSecret,
  rotateSecret,
  updateWebhook,
} from '../../services/webhooks/manage'
import { op } from '../operation'

const EventName = t.Union(
  EVENT_TYPES.map((e) => t.Literal(e)),
  { description: 'One of the seven event types' },
)
// Event names are checked by the service so every failure names its index (events[2]).
const EventList = t.Array(t.String({ maxLength: 64 }), { maxItems: 20 })
const Url = t.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https, public (see HERALD_WEBHOOK_ALLOW_PRIVATE)',
})

const Webhook = t.Object({
  id: Uuid,
  client_id: Uuid,
  url: t.String(),
  events: t.Array(t.String()),
  active: t.Boolean(),
  disabled_reason: Nullable(t.Union([t.Literal('manual'), t.Literal('gone'), t.Literal('failing')])),
  failing_since: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
})
const WebhookWithSecret = t.Composite([
  Webhook,
  t.Object({ secret: t.String({ description: 'whsec_… signing secret, shown once' }) }),
])
const WebhookInput = t.Object({ url: Url, events: EventList }, strict)
const WebhookPatch = t.Object(
  { url: t.Optional(Url), events: t.Optional(EventList), active: t.Optional(t.Boolean()) },
  strict,
)
const Attempt = t.Object({
  attempted_at: DateTime,
  status: Nullable(t.Integer()),
  duration_ms: t.Integer(),
  response_excerpt: Nullable(t.String()),
  error: Nullable(t.String()),
})
const Delivery = t.Object({
  id: Uuid,
  webhook_id: Uuid,
  client_id: Uuid,
  event_id: t.String({ description: 'evt_… — the webhook-id header of every attempt' }),
  event_type: t.String(),
  test: t.Boolean(),
  status: t.Union([t.Literal('pending'), t.Literal('sending'), t.Literal('succeeded'), t.Literal('failed')]),
  attempts: t.Integer(),
  next_attempt_at: Nullable(DateTime),
  last_status: Nullable(t.Integer()),
  last_error: Nullable(t.String()),
  attempt_log: t.Array(Attempt),
  created_at: DateTime,
  updated_at: DateTime,
  completed_at: Nullable(DateTime),
})

const tag = 'Webhooks'

export const webhookOperations = [
  op({
    id: 'listWebhooks',
    method: 'GET',
    path: '/api/v1/webhooks',
    tag,
    auth: 'any',
    summary: 'List webhook subscriptions',
    query: ClientPageQuery,
    response: pageOf(Webhook),
    handle: (ctx, { query }) => listWebhooks(ctx, query),
  }),
  op({
    id: 'createWebhook',
    method: 'POST',
    path: '/api/v1/webhooks',
    tag,
    auth: 'any',
    summary: 'Subscribe a URL to events (the signing secret is returned this once)',
    query: CreateQuery,
    body: WebhookInput,
    response: dataOf(WebhookWithSecret),
    handle: (ctx, { body, query }) => ({ data: createWebhook(ctx, body, query.client_id) }),
  }),
  op({
    id: 'getWebhook',
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    tag,
    auth: 'any',
    summary: 'Get a webhook',
    response: dataOf(Webhook),
    handle: (ctx, { params }) => ({ data: getWebhook(ctx, params.id!) }),
  }),
  op({
    id: 'updateWebhook',
    method: 'PATCH',
    path: '/api/v1/webhooks/{id}',
    tag,
    auth: 'any',
    summary: 'Change url, events, or active (true re-enables a disabled endpoint)',
    body: WebhookPatch,
    response: dataOf(Webhook),
    handle: (ctx, { params, body }) => ({ data: updateWebhook(ctx, params.id!, body) }),
  }),
  op({
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    tag,
    auth: 'any',
    destructive: true,
    summary: 'Delete a webhook and its delivery log',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteWebhook(ctx, params.id!) }),
  }),
  op({
    id: 'testWebhook',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/test',
    tag,
    auth: 'any',
    summary: 'Send one signed sample event now (data.test = true; not retried; logged)',
    body: t.Object({ event: EventName }, strict),
    response: dataOf(
      t.Object({
        delivery_id: Uuid,
        event_id: t.String(),
        delivered: t.Boolean(),
        status: Nullable(t.Integer()),
        duration_ms: t.Integer(),
        error: Nullable(t.String()),
      }),
    ),
    handle: (ctx, { params, body }) => testWebhook(ctx, params.id!, body.event),
  }),
  op({
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    tag,
    auth: 'any',
    summary: 'New signing secret; the old one keeps signing alongside for 24 hours',
    response: dataOf(t.Object({ id: Uuid, secret: t.String(), previous_secret_expires_at: DateTime })),
    handle: (ctx, { params }) => ({ data: rotateSecret(ctx, params.id!) }),
  }),
  op({
    id: 'getWebhookSecret',
    method: 'GET',
    path: '/api/v1/webhooks/{id}/secret',
    tag,
    auth: 'admin:*',
    summary: 'Reveal the signing secret (admin)',
    response: dataOf(
      t.Object({
        id: Uuid,
        secret: t.String(),
        previous_secret: Nullable(t.String()),
        previous_secret_expires_at: Nullable(DateTime),
      }),
    ),
    handle: (ctx, { params }) => ({ data: revealSecret(ctx, params.id!) }),
  }),
  op({
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    tag,
    auth: 'any',
    summary: 'Deliveries of a webhook, newest first, with every attempt',
    query: PageQuery,
    response: pageOf(Delivery),
    handle: (ctx, { params, query }) => listDeliveries(ctx, params.id!, query),
  }),
  op({
    id: 'retryWebhookDelivery',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
    tag,
    auth: 'any',
    summary: 'Attempt a delivery again now (same webhook-id)',
    response: dataOf(Delivery),
    handle: (ctx, { params }) => ({ data: retryDelivery(ctx, params.id!, params.delivery_id!) }),
  }),
]
