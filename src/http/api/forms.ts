import { Type as t } from '@sinclair/typebox'
import { FORM_STATUSES } from '../../lib/enums'
import {
  createFormVerb,
  deleteFormVerb,
  formEmbedVerb,
  getFormVerb,
  listFormsVerb,
  updateFormVerb,
} from '../../services/forms/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Form = named(
  'Form',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    list_ids: t.Array(Uuid),
    fields: t.Array(t.String(), {
      description: 'email first, then first_name, last_name, company, phone, custom.<key>',
    }),
    double_opt_in: t.Boolean(),
    confirmation_template_id: Nullable(Uuid),
    consent_text: t.String(),
    success_url: Nullable(t.String({ format: 'uri' })),
    confirmed_url: Nullable(t.String({ format: 'uri' })),
    status: t.Union(FORM_STATUSES.map((s) => t.Literal(s))),
    url: t.String({ format: 'uri', description: 'The hosted page; the embed posts here too' }),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Forms'
const ITEM = '/api/v1/forms/{id}'

export const formOperations = [
  route(listFormsVerb, {
    id: 'listForms',
    method: 'GET',
    path: '/api/v1/forms',
    tag,
    summary: 'List signup forms',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Form),
  }),
  route(createFormVerb, {
    id: 'createForm',
    method: 'POST',
    path: '/api/v1/forms',
    tag,
    summary: 'Create a signup form for lists of the client (double opt-in unless told otherwise)',
    query: ['client_id'],
    response: dataOf(Form),
  }),
  route(getFormVerb, {
    id: 'getForm',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a signup form',
    response: dataOf(Form),
  }),
  route(updateFormVerb, {
    id: 'updateForm',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Change a signup form (status disabled: its page and endpoint answer 404)',
    response: dataOf(Form),
  }),
  route(deleteFormVerb, {
    id: 'deleteForm',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a signup form (the consents it gathered stay)',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(formEmbedVerb, {
    id: 'getFormEmbed',
    method: 'GET',
    path: `${ITEM}/embed`,
    tag,
    summary: 'The HTML to paste into a site: a plain form posting to the public endpoint, no script',
    response: dataOf(t.Object({ html: t.String() })),
  }),
]
