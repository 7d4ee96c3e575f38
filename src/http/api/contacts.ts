import { Type as t } from '@sinclair/typebox'
import { CONTACT_STATUSES } from '../../lib/enums'
import { getContact, listContacts, searchContacts } from '../../services/contacts/read'
import { createContact, eraseContact, updateContact } from '../../services/contacts/write'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  pageOf,
  pageQueryMembers,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Str = (max: number) => t.Union([t.String({ maxLength: max }), t.Null()])
const InputStatus = t.Union([t.Literal('subscribed'), t.Literal('unsubscribed'), t.Literal('blocked')])

const Contact = t.Object({
  id: Uuid,
  client_id: Uuid,
  email: t.String({ format: 'email' }),
  first_name: Str(200),
  last_name: Str(200),
  company: Str(200),
  phone: t.Union([t.String({ description: 'E.164' }), t.Null()]),
  status: t.Union(CONTACT_STATUSES.map((s) => t.Literal(s))),
  timezone: t.Union([t.String(), t.Null()]),
  custom_fields: t.Record(t.String(), t.Unknown()),
  created_at: DateTime,
  updated_at: DateTime,
})

const members = {
  email: t.String({ format: 'email', maxLength: 254 }),
  first_name: t.Optional(Str(200)),
  last_name: t.Optional(Str(200)),
  company: t.Optional(Str(200)),
  phone: t.Optional(Str(64)),
  timezone: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()])),
  status: t.Optional(InputStatus),
  custom_fields: t.Optional(
    t.Record(t.String(), t.Unknown(), { description: 'Up to 100 members; key ≤ 64 chars, value ≤ 2 KiB' }),
  ),
  list_ids: t.Optional(t.Array(t.String({ format: 'uuid' }), { maxItems: 100 })),
}
const ContactInput = t.Object(members, strict)
const ContactPatch = t.Object({ ...members, email: t.Optional(members.email) }, strict)
const SearchInput = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 200 }),
    ...pageQueryMembers,
    client_id: t.Optional(t.String()),
  },
  strict,
)

const tag = 'Contacts'

export const contactOperations = [
  op({
    id: 'listContacts',
    method: 'GET',
    path: '/api/v1/contacts',
    tag,
    auth: 'any',
    summary: 'List contacts, newest first',
    query: ClientPageQuery,
    response: pageOf(Contact),
    handle: (ctx, { query }) => listContacts(ctx, query),
  }),
  op({
    id: 'createContact',
    method: 'POST',
    path: '/api/v1/contacts',
    tag,
    auth: 'contacts:write',
    summary: 'Create a contact (email unique per client, case-insensitive; 409 with details.existing_id)',
    query: CreateQuery,
    body: ContactInput,
    response: dataOf(Contact),
    handle: (ctx, { body, query }) => ({ data: createContact(ctx, body, query.client_id) }),
  }),
  op({
    id: 'searchContacts',
    method: 'POST',
    path: '/api/v1/contacts/search',
    tag,
    auth: 'any',
    summary: 'Search contacts: every term matches the start of a word of email, names, company or phone',
    body: SearchInput,
    response: pageOf(Contact),
    handle: (ctx, { body }) => searchContacts(ctx, body),
  }),
  op({
    id: 'getContact',
    method: 'GET',
    path: '/api/v1/contacts/{id}',
    tag,
    auth: 'any',
    summary: 'Get a contact',
    response: dataOf(Contact),
    handle: (ctx, { params }) => ({ data: getContact(ctx, params.id!) }),
  }),
  op({
    id: 'updateContact',
    method: 'PATCH',
    path: '/api/v1/contacts/{id}',
    tag,
    auth: 'contacts:write',
    summary: 'Update a contact (partial; custom_fields merge member by member, null removes)',
    body: ContactPatch,
    response: dataOf(Contact),
    handle: (ctx, { params, body }) => ({ data: updateContact(ctx, params.id!, body) }),
  }),
  op({
    id: 'deleteContact',
    method: 'DELETE',
    path: '/api/v1/contacts/{id}',
    tag,
    auth: 'contacts:write',
    destructive: true,
    summary: 'Erase a contact (GDPR): personal data removed, anonymised event counts kept',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: eraseContact(ctx, params.id!) }),
  }),
]
