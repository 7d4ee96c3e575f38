import { Type as t } from '@sinclair/typebox'
import {
  addListMembersVerb,
  createListVerb,
  deleteListVerb,
  getListVerb,
  listListMembersVerb,
  listListsVerb,
  removeListMembersVerb,
  updateListVerb,
} from '../../services/lists/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'
import { Contact } from './contacts'

const ContactList = named(
  'ContactList',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    name: t.String(),
    description: t.Union([t.String(), t.Null()]),
    opt_in: t.Union([t.Literal('single'), t.Literal('double')]),
    public: t.Boolean(),
    public_name: t.Union([t.String(), t.Null()]),
    member_count: t.Integer({ description: 'Confirmed members: the ones campaigns reach' }),
    unconfirmed_count: t.Integer({ description: 'Members still to confirm a double opt-in' }),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Lists'
const ITEM = '/api/v1/lists/{id}'

export const listOperations = [
  route(listListsVerb, {
    id: 'listLists',
    method: 'GET',
    path: '/api/v1/lists',
    tag,
    summary: 'List static lists',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(ContactList),
  }),
  route(createListVerb, {
    id: 'createList',
    method: 'POST',
    path: '/api/v1/lists',
    tag,
    summary: 'Create a static list',
    query: ['client_id'],
    response: dataOf(ContactList),
  }),
  route(getListVerb, {
    id: 'getList',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a list (member_count is exact)',
    response: dataOf(ContactList),
  }),
  route(updateListVerb, {
    id: 'updateList',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Change a list: name, description, opt-in, preference-centre visibility',
    response: dataOf(ContactList),
  }),
  route(deleteListVerb, {
    id: 'deleteList',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a list (its contacts stay)',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(listListMembersVerb, {
    id: 'listListContacts',
    method: 'GET',
    path: `${ITEM}/contacts`,
    tag,
    summary: 'Members of a list, confirmed and unconfirmed, each with its membership_status',
    query: ['limit', 'cursor'],
    answer: 'as-is',
    response: pageOf(
      t.Composite([
        Contact,
        t.Object({ membership_status: t.Union([t.Literal('unconfirmed'), t.Literal('confirmed')]) }),
      ]),
    ),
  }),
  route(addListMembersVerb, {
    id: 'addListContacts',
    method: 'POST',
    path: `${ITEM}/contacts`,
    tag,
    summary:
      'Add up to 10,000 contacts (already a member is not an error); ?double_opt_in=true adds them unconfirmed and sends each a confirmation',
    query: ['double_opt_in'],
    response: dataOf(t.Composite([ContactList, t.Object({ added: t.Integer() })])),
  }),
  route(removeListMembersVerb, {
    id: 'removeListContacts',
    method: 'POST',
    path: `${ITEM}/contacts/remove`,
    tag,
    summary: 'Remove contacts from a list',
    response: dataOf(t.Composite([ContactList, t.Object({ removed: t.Integer() })])),
  }),
]
