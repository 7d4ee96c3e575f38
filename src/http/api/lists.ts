import { Type as t } from '@sinclair/typebox'
import {
  addListMembers,
  createList,
  deleteList,
  getList,
  listLists,
  listMembersPage,
  removeListMembers,
} from '../../services/lists/manage'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Name,
  PageQuery,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const ContactList = t.Object({
  id: Uuid,
  client_id: Uuid,
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  member_count: t.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
})
const ListInput = t.Object({ name: Name, description: t.Optional(t.String({ maxLength: 2000 })) }, strict)
const ContactIds = t.Object(
  { contact_ids: t.Array(t.String({ format: 'uuid' }), { minItems: 1, maxItems: 10_000 }) },
  strict,
)
const AnyContact = t.Record(t.String(), t.Unknown())

const tag = 'Lists'

export const listOperations = [
  op({
    id: 'listLists',
    method: 'GET',
    path: '/api/v1/lists',
    tag,
    auth: 'any',
    summary: 'List static lists',
    query: ClientPageQuery,
    response: pageOf(ContactList),
    handle: (ctx, { query }) => listLists(ctx, query),
  }),
  op({
    id: 'createList',
    method: 'POST',
    path: '/api/v1/lists',
    tag,
    auth: 'lists:write',
    summary: 'Create a static list',
    query: CreateQuery,
    body: ListInput,
    response: dataOf(ContactList),
    handle: (ctx, { body, query }) => ({ data: createList(ctx, body, query.client_id) }),
  }),
  op({
    id: 'getList',
    method: 'GET',
    path: '/api/v1/lists/{id}',
    tag,
    auth: 'any',
    summary: 'Get a list (member_count is exact)',
    response: dataOf(ContactList),
    handle: (ctx, { params }) => ({ data: getList(ctx, params.id!) }),
  }),
  op({
    id: 'deleteList',
    method: 'DELETE',
    path: '/api/v1/lists/{id}',
    tag,
    auth: 'lists:write',
    destructive: true,
    summary: 'Delete a list (its contacts stay)',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteList(ctx, params.id!) }),
  }),
  op({
    id: 'listListContacts',
    method: 'GET',
    path: '/api/v1/lists/{id}/contacts',
    tag,
    auth: 'any',
    summary: 'Members of a list',
    query: PageQuery,
    response: pageOf(AnyContact),
    handle: (ctx, { params, query }) => listMembersPage(ctx, params.id!, query),
  }),
  op({
    id: 'addListContacts',
    method: 'POST',
    path: '/api/v1/lists/{id}/contacts',
    tag,
    auth: 'lists:write',
    summary: 'Add up to 10,000 contacts (already a member is not an error)',
    body: ContactIds,
    response: dataOf(t.Composite([ContactList, t.Object({ added: t.Integer() })])),
    handle: (ctx, { params, body }) => ({ data: addListMembers(ctx, params.id!, body.contact_ids) }),
  }),
  op({
    id: 'removeListContacts',
    method: 'POST',
    path: '/api/v1/lists/{id}/contacts/remove',
    tag,
    auth: 'lists:write',
    summary: 'Remove contacts from a list',
    body: ContactIds,
    response: dataOf(t.Composite([ContactList, t.Object({ removed: t.Integer() })])),
    handle: (ctx, { params, body }) => ({ data: removeListMembers(ctx, params.id!, body.contact_ids) }),
  }),
]
