import { Type as t } from '@sinclair/typebox'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { EventName } from '../../services/webhooks/inputs'
import {
  createWebhookVerb,
  deleteWebhookVerb,
  getWebhookSecretVerb,
  getWebhookVerb,
  listWebhookDeliveriesVerb,
  listWebhooksVerb,
  retryWebhookDeliveryVerb,
  rotateWebhookSecretVerb,
  testWebhookVerb,
  updateWebhookVerb,
} from '../../services/webhooks/verbs'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Webhook = named(
  'Webhook',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    url: t.String({ format: 'uri' }),
    events: t.Array(named('EventType', EventName)),
    active: t.Boolean(),
    disabled_reason: Nullable(t.Union([t.Literal('manual'), t.Literal('gone'), t.Literal('failing')])),
    failing_since: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)
// What the service enforces on `events` (src/services/webhooks/records.ts), with its own messages.
const Events = t.Array(named('EventType', EventName), { minItems: 1, maxItems: 20, uniqueItems: true })
const WebhookWithSecret = named(
  'WebhookWithSecret',
  t.Composite([
    Webhook,
    t.Object({ secret: t.String({ description: 'whsec_… signing secret, shown once' }) }),
  ]),
)
const Attempt = named(
  'WebhookDeliveryAttempt',
  t.Object({
    attempted_at: DateTime,
    status: Nullable(t.Integer()),
    duration_ms: t.Integer(),
    response_excerpt: Nullable(t.String()),
    error: Nullable(t.String()),
  }),
)
const Delivery = named(
  'WebhookDelivery',
  t.Object({
    id: Uuid,
    webhook_id: Uuid,
    client_id: Uuid,
    event_id: t.String({ description: 'evt_… — the webhook-id header of every attempt' }),
    event_type: t.String(),
    test: t.Boolean(),
    status: t.Union([
      t.Literal('pending'),
      t.Literal('sending'),
      t.Literal('succeeded'),
      t.Literal('failed'),
    ]),
    attempts: t.Integer(),
    next_attempt_at: Nullable(DateTime),
    last_status: Nullable(t.Integer()),
    last_error: Nullable(t.String()),
    attempt_log: t.Array(Attempt),
    created_at: DateTime,
    updated_at: DateTime,
    completed_at: Nullable(DateTime),
  }),
)

const tag = 'Webhooks'

export const webhookOperations = [
  route(listWebhooksVerb, {
    id: 'listWebhooks',
    method: 'GET',
    path: '/api/v1/webhooks',
    tag,
    summary: 'List webhook subscriptions',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Webhook),
  }),
  route(createWebhookVerb, {
    id: 'createWebhook',
    method: 'POST',
    path: '/api/v1/webhooks',
    tag,
    summary: 'Subscribe a URL to events (the signing secret is returned this once)',
    query: ['client_id'],
    documented: { events: Events },
    response: dataOf(WebhookWithSecret),
  }),
  route(getWebhookVerb, {
    id: 'getWebhook',
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    tag,
    summary: 'Get a webhook',
    response: dataOf(Webhook),
  }),
  route(updateWebhookVerb, {
    id: 'updateWebhook',
    method: 'PATCH',
    path: '/api/v1/webhooks/{id}',
    tag,
    summary: 'Change url, events, or active (true re-enables a disabled endpoint)',
    documented: { events: Events },
    response: dataOf(Webhook),
  }),
  route(deleteWebhookVerb, {
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    tag,
    summary: 'Delete a webhook and its delivery log',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(testWebhookVerb, {
    id: 'testWebhook',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/test',
    tag,
    summary: 'Send one signed sample event now (data.test = true; not retried; logged)',
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
  }),
  route(rotateWebhookSecretVerb, {
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    tag,
    summary: 'New signing secret (admin); the old one keeps signing alongside for 24 hours',
    response: dataOf(t.Object({ id: Uuid, secret: t.String(), previous_secret_expires_at: DateTime })),
  }),
  route(getWebhookSecretVerb, {
    id: 'getWebhookSecret',
    method: 'GET',
    path: '/api/v1/webhooks/{id}/secret',
    tag,
    summary: 'Reveal the signing secret (admin)',
    response: dataOf(
      t.Object({
        id: Uuid,
        secret: t.String(),
        previous_secret: Nullable(t.String()),
        previous_secret_expires_at: Nullable(DateTime),
      }),
    ),
  }),
  route(listWebhookDeliveriesVerb, {
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    tag,
    summary: 'Deliveries of a webhook, newest first, with every attempt',
    query: ['limit', 'cursor'],
    answer: 'as-is',
    response: pageOf(Delivery),
  }),
  route(retryWebhookDeliveryVerb, {
    id: 'retryWebhookDelivery',
    method: 'POST',
    path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
    tag,
    summary: 'Attempt a delivery again now (same webhook-id)',
    response: dataOf(Delivery),
  }),
]
