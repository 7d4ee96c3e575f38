import { defineVerb } from '../verbs/define'
import {
  AddListContactsInput,
  CreateListInput,
  ListContactIdsInput,
  ListListsInput,
  ListMembersInput,
  ListRef,
  UpdateListInput,
} from './inputs'
import { addListMembers, listMembersPage, removeListMembers } from './members'
import { createList, deleteList, getList, listLists, updateList } from './records'

export const listListsVerb = defineVerb({
  name: 'lists.list',
  scope: 'any',
  input: ListListsInput,
  mutates: false,
  run: async (ctx, input) => await listLists(ctx, input),
})

export const createListVerb = defineVerb({
  name: 'lists.create',
  scope: 'lists:write',
  input: CreateListInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createList(ctx, fields, client_id),
})

export const getListVerb = defineVerb({
  name: 'lists.get',
  scope: 'any',
  input: ListRef,
  mutates: false,
  run: async (ctx, { id }) => await getList(ctx, id),
})

export const updateListVerb = defineVerb({
  name: 'lists.update',
  scope: 'lists:write',
  input: UpdateListInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateList(ctx, id, patch),
})

export const deleteListVerb = defineVerb({
  name: 'lists.delete',
  scope: 'lists:write',
  input: ListRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteList(ctx, id),
})

export const listListMembersVerb = defineVerb({
  name: 'lists.members',
  scope: 'any',
  input: ListMembersInput,
  mutates: false,
  run: async (ctx, { id, ...page }) => await listMembersPage(ctx, id, page),
})

export const addListMembersVerb = defineVerb({
  name: 'lists.add-contacts',
  scope: 'lists:write',
  input: AddListContactsInput,
  mutates: true,
  run: async (ctx, { id, contact_ids, double_opt_in }) =>
    await addListMembers(ctx, id, contact_ids, double_opt_in),
})

export const removeListMembersVerb = defineVerb({
  name: 'lists.remove-contacts',
  scope: 'lists:write',
  input: ListContactIdsInput,
  mutates: true,
  run: async (ctx, { id, contact_ids }) => await removeListMembers(ctx, id, contact_ids),
})
