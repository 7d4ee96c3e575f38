import { type Static, Type as t } from '@sinclair/typebox'
import { EVENT_TYPES } from '../events/record'
import { ClientPageQuery, CreateQuery, PageQuery, RecordId, strict } from '../verbs/schemas'

// What the webhook verbs take: one schema per input, shared by every door.

export const EventName = t.Union(
  EVENT_TYPES.map((e) => t.Literal(e)),
  { description: 'One of the seven event types' },
)
// Event names are checked by the service so every failure names its index (events[2]).
const EventList = t.Array(t.String({ maxLength: 64 }), { maxItems: 20 })
// format uri: the spec types url as a URI; the service then checks https and the host.
const Url = t.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  'x-format-message': 'must be an absolute URL',
  description: 'https, public (see HERALD_WEBHOOK_ALLOW_PRIVATE)',
})

const webhookFields = { url: Url, events: EventList }
const WebhookFields = t.Object(webhookFields, strict)
export type WebhookInput = Static<typeof WebhookFields>

const patchFields = { url: t.Optional(Url), events: t.Optional(EventList), active: t.Optional(t.Boolean()) }
const PatchFields = t.Object(patchFields, strict)
export type WebhookPatch = Static<typeof PatchFields>

export const ListWebhooksInput = ClientPageQuery

// The portal dashboard's list: `failing` is a filter the spec's GET /webhooks does not name, so
// it is a verb of its own that no REST operation (nor MCP tool) points at.
export const FilterWebhooksInput = t.Object(
  {
    ...ClientPageQuery.properties,
    failing: t.Optional(
      t.Boolean({ description: 'Only endpoints failing (failing_since set) or disabled (any reason)' }),
    ),
  },
  strict,
)
export type ListWebhooksQuery = Static<typeof FilterWebhooksInput>

export const CreateWebhookInput = t.Object({ ...CreateQuery.properties, ...webhookFields }, strict)

export const UpdateWebhookInput = t.Object({ id: RecordId, ...patchFields }, strict)

export const WebhookRef = t.Object({ id: RecordId }, strict)

// `event` may be left out (the spec only says "a test event can be sent"): the webhook's first
// subscribed event is sent then, so a bare POST /webhooks/{id}/test works.
export const TestWebhookInput = t.Object(
  {
    id: RecordId,
    event: t.Optional(
      t.Union(EventName.anyOf, { description: "One of the seven event types; default: the webhook's first" }),
    ),
  },
  strict,
)

export const ListDeliveriesInput = t.Object({ id: RecordId, ...PageQuery.properties }, strict)

export const DeliveryRef = t.Object({ id: RecordId, delivery_id: RecordId }, strict)
