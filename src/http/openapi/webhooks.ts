import { type TObject, type TSchema, Type as t } from '@sinclair/typebox'
import type { EventType } from '../../services/events/record'
import { MAX_CLICKED_LINKS } from '../../services/messages/first-hits'
import { type Json, named, ref, type SchemaRegistry } from './schemas'

// The spec's Events part in the document: one OpenAPI 3.1 `webhooks` entry per event type, with
// the delivery envelope, each type's data and the Standard Webhooks headers, so an
// integrator can generate receiver types the way they generate the client. Data objects name
// what is always sent; extra members (journey_id, sequence_id, machine, test) may appear.

const Prefixed = (prefix: string) =>
  t.String({ pattern: `^${prefix}_[0-9a-f]{32}$`, description: `Prefixed opaque id (${prefix}_…)` })
const OrNull = <T extends TSchema>(s: T) => t.Union([s, t.Null()])
const At = t.String({ format: 'date-time' })
const Email = t.String({ format: 'email' })

const message = {
  message_id: Prefixed('msg'),
  campaign_id: OrNull(Prefixed('cmp')),
  contact_id: Prefixed('con'),
  email: Email,
}
const UserAgent = OrNull(t.String())

const DATA: Record<EventType, TObject> = {
  'email.delivered': t.Object({ ...message, channel: t.String(), delivered_at: At }),
  'email.opened': t.Object({ ...message, opened_at: At, user_agent: UserAgent }),
  'email.clicked': t.Object({ ...message, url: t.String(), clicked_at: At, user_agent: UserAgent }),
  'email.bounced': t.Object({
    ...message,
    bounce_type: t.Union([t.Literal('hard'), t.Literal('soft')]),
    status_code: OrNull(t.String()),
    diagnostic: OrNull(t.String()),
    bounced_at: At,
  }),
  'contact.unsubscribed': t.Object({
    contact_id: Prefixed('con'),
    email: Email,
    campaign_id: OrNull(Prefixed('cmp')),
    message_id: OrNull(Prefixed('msg')),
    source: t.String({ description: 'one_click, unsubscribe_page, mailto, api, journey, …' }),
    unsubscribed_at: At,
  }),
  'campaign.complete': t.Object({
    campaign_id: Prefixed('cmp'),
    name: t.String(),
    channel: t.String(),
    total_recipients: t.Integer(),
    total_sent: t.Integer(),
    skipped: t.Integer(),
    delivered: t.Integer(),
    bounced: t.Integer(),
    failed: t.Integer(),
    completed_at: At,
  }),
  'reply.received': t.Object({
    reply_id: Prefixed('rpl'),
    message_id: Prefixed('msg'),
    campaign_id: OrNull(Prefixed('cmp')),
    contact_id: Prefixed('con'),
    from: t.String(),
    subject: OrNull(t.String()),
    snippet: t.String({ description: 'A short excerpt of the reply text' }),
    received_at: At,
  }),
}

const FIRES: Record<EventType, string> = {
  'email.delivered': "The recipient's mail server (or the provider) accepted a message",
  'email.opened':
    "A recipient opened an email (tracking pixel): once per message for the reader and once for a mail privacy proxy (machine: true); later opens are only counted in the message's opens_count",
  'email.clicked': `A recipient clicked a tracked link: the first click of each link, for up to ${MAX_CLICKED_LINKS} links per message; later clicks are only counted in the message's clicks_count`,
  'email.bounced': 'An email hard- or soft-bounced',
  'contact.unsubscribed': 'A contact opted out',
  'campaign.complete': 'A campaign finished sending to its audience',
  'reply.received': 'An inbound reply to a message was received',
}

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')

/** The envelope of one event type: `{id, type, created_at, data}`. */
function envelope(type: EventType) {
  return named(
    `${pascal(type)}Event`,
    t.Object({
      id: t.String({ pattern: '^evt_[0-9a-f]{32}$', description: 'Unique event id; the de-duplication key' }),
      type: t.Literal(type),
      created_at: At,
      data: named(`${pascal(type)}Data`, DATA[type]),
    }),
  )
}

const SIGNATURE_HEADERS: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id (evt_…), the same on every attempt',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Seconds since the epoch when this attempt was signed',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the ' +
      "webhook's secret (whsec_…; two during a rotation). Verify over the raw body, in constant time.",
    schema: { type: 'string' },
  },
]

/** The document's top-level `webhooks`: what Herald POSTs to a subscribed URL, per event type. */
export function webhookEntries(registry: SchemaRegistry, types: readonly EventType[]): Json {
  return Object.fromEntries(
    types.map((type) => {
      registry.toJson(envelope(type))
      return [
        type,
        {
          post: {
            operationId: `on${pascal(type)}`,
            tags: ['Webhooks'],
            summary: `${type}: ${FIRES[type]}`,
            description:
              'Sent to every active webhook subscribed to this type. Answer 2xx to acknowledge; any ' +
              'other answer, a time-out (15 s) or no connection is retried with backoff (5 s, 5 min, ' +
              '30 min, 2 h, 5 h, 10 h, 10 h); 410 disables the webhook. The same event may arrive ' +
              'more than once: de-duplicate on `id`.',
            parameters: SIGNATURE_HEADERS,
            requestBody: {
              required: true,
              content: { 'application/json': { schema: ref(`${pascal(type)}Event`) } },
            },
            responses: {
              '200': { description: 'Acknowledged (any 2xx does)' },
              '410': { description: 'Gone: Herald disables the webhook' },
            },
            security: [],
          },
        },
      ]
    }),
  )
}
