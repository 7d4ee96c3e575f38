import { Type as t } from '@sinclair/typebox'
import { TEMPLATE_CHANNELS } from '../../lib/enums'
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  updateTemplate,
} from '../../services/templates/manage'
import { previewTemplate } from '../../services/templates/preview'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Name,
  Nullable,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Channel = t.Union(TEMPLATE_CHANNELS.map((c) => t.Literal(c)))
const Subject = t.String({ maxLength: 998 })
const BodyHtml = t.String({ maxLength: 512 * 1024 })
const BodyText = t.String({ maxLength: 128 * 1024 })

const Template = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  channel: Channel,
  subject: Nullable(t.String()),
  body_html: Nullable(t.String()),
  body_text: Nullable(t.String()),
  created_at: DateTime,
  updated_at: DateTime,
})

const TemplateInput = t.Object(
  {
    name: Name,
    channel: t.Optional(Channel),
    subject: t.Optional(Nullable(Subject)),
    body_html: t.Optional(Nullable(BodyHtml)),
    body_text: t.Optional(Nullable(BodyText)),
  },
  strict,
)
const TemplatePatch = t.Partial(TemplateInput, strict)

const Members = t.Record(t.String(), t.Unknown())
const PreviewInput = t.Object(
  {
    contact_id: t.Optional(t.String({ description: 'A contact of the template’s client' })),
    sample: t.Optional(
      t.Object(
        {
          contact: t.Optional(Members),
          client: t.Optional(Members),
          campaign: t.Optional(Members),
          unsubscribe_url: t.Optional(t.String({ maxLength: 2048 })),
        },
        strict,
      ),
    ),
  },
  strict,
)
const Preview = t.Object({
  template_id: Uuid,
  client_id: Uuid,
  channel: Channel,
  subject: Nullable(t.String()),
  body_html: Nullable(t.String()),
  body_text: Nullable(t.String()),
  missing_variables: t.Array(t.String()),
  sms: t.Optional(
    t.Object({
      encoding: t.Union([t.Literal('GSM-7'), t.Literal('UCS-2')]),
      length: t.Integer(),
      segments: t.Integer(),
    }),
  ),
})

const tag = 'Templates'

export const templateOperations = [
  op({
    id: 'listTemplates',
    method: 'GET',
    path: '/api/v1/templates',
    tag,
    auth: 'any',
    summary: 'List templates',
    query: ClientPageQuery,
    response: pageOf(Template),
    handle: (ctx, { query }) => listTemplates(ctx, query),
  }),
  op({
    id: 'createTemplate',
    method: 'POST',
    path: '/api/v1/templates',
    tag,
    auth: 'templates:write',
    summary:
      'Create a template (Liquid in subject, body_html, body_text; 422 with line and column if it does not parse)',
    query: CreateQuery,
    body: TemplateInput,
    response: dataOf(Template),
    handle: (ctx, { query, body }) => ({ data: createTemplate(ctx, query.client_id, body) }),
  }),
  op({
    id: 'getTemplate',
    method: 'GET',
    path: '/api/v1/templates/{id}',
    tag,
    auth: 'any',
    summary: 'Get a template',
    response: dataOf(Template),
    handle: (ctx, { params }) => ({ data: getTemplate(ctx, params.id!) }),
  }),
  op({
    id: 'updateTemplate',
    method: 'PATCH',
    path: '/api/v1/templates/{id}',
    tag,
    auth: 'templates:write',
    summary: 'Update a template (partial)',
    body: TemplatePatch,
    response: dataOf(Template),
    handle: (ctx, { params, body }) => ({ data: updateTemplate(ctx, params.id!, body) }),
  }),
  op({
    id: 'deleteTemplate',
    method: 'DELETE',
    path: '/api/v1/templates/{id}',
    tag,
    auth: 'templates:write',
    destructive: true,
    summary: 'Delete a template',
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteTemplate(ctx, params.id!) }),
  }),
  op({
    id: 'previewTemplate',
    method: 'POST',
    path: '/api/v1/templates/{id}/preview',
    tag,
    auth: 'any',
    summary: 'Render a template for a contact and/or sample data; lists variables that printed empty',
    body: PreviewInput,
    response: dataOf(Preview),
    handle: (ctx, { params, body }) => ({ data: previewTemplate(ctx, params.id!, body) }),
  }),
]
