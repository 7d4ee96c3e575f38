import { Type as t } from '@sinclair/typebox'
import { TemplateChannel } from '../../services/templates/inputs'
import {
  createTemplateVerb,
  deleteTemplateVerb,
  getTemplateVerb,
  listTemplatesVerb,
  previewTemplateVerb,
  updateTemplateVerb,
} from '../../services/templates/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Template = named(
  'Template',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    channel: TemplateChannel,
    subject: Nullable(t.String()),
    body_html: Nullable(t.String()),
    body_text: Nullable(t.String()),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const Preview = named(
  'TemplatePreview',
  t.Object({
    template_id: Uuid,
    client_id: Uuid,
    channel: TemplateChannel,
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
  }),
)

const tag = 'Templates'
const ITEM = '/api/v1/templates/{id}'

export const templateOperations = [
  route(listTemplatesVerb, {
    id: 'listTemplates',
    method: 'GET',
    path: '/api/v1/templates',
    tag,
    summary: 'List templates',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Template),
  }),
  route(createTemplateVerb, {
    id: 'createTemplate',
    method: 'POST',
    path: '/api/v1/templates',
    tag,
    summary:
      'Create a template (Liquid in subject, body_html, body_text; 422 with line and column if it does not parse)',
    query: ['client_id'],
    response: dataOf(Template),
  }),
  route(getTemplateVerb, {
    id: 'getTemplate',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a template',
    response: dataOf(Template),
  }),
  route(updateTemplateVerb, {
    id: 'updateTemplate',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a template (partial)',
    response: dataOf(Template),
  }),
  route(deleteTemplateVerb, {
    id: 'deleteTemplate',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary:
      'Delete a template (409 CONFLICT with details.used_by while an unfinished campaign or a journey or sequence not archived names it)',
    refusesInUse: true,
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
  }),
  route(previewTemplateVerb, {
    id: 'previewTemplate',
    method: 'POST',
    path: `${ITEM}/preview`,
    tag,
    summary: 'Render a template for a contact and/or sample data; lists variables that printed empty',
    response: dataOf(Preview),
  }),
]
