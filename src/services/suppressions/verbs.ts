import { defineVerb } from '../verbs/define'
import {
  AddSuppressionInput,
  ListSuppressionsInput,
  RemoveSuppressionInput,
  SearchSuppressionsInput,
} from './inputs'
import { addSuppression, listSuppressions, removeSuppression, searchSuppressions } from './records'

export const listSuppressionsVerb = defineVerb({
  name: 'suppressions.list',
  scope: 'any',
  input: ListSuppressionsInput,
  mutates: false,
  run: async (ctx, input) => await listSuppressions(ctx, input),
})

export const addSuppressionVerb = defineVerb({
  name: 'suppressions.add',
  scope: 'compliance:read',
  input: AddSuppressionInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await addSuppression(ctx, fields, client_id),
})

export const removeSuppressionVerb = defineVerb({
  name: 'suppressions.remove',
  scope: 'compliance:read',
  input: RemoveSuppressionInput,
  mutates: true,
  destructive: true,
  run: async (ctx, { email, client_id }) => await removeSuppression(ctx, email, client_id),
})

/** Suppressions by address prefix (portal-only read). */
export const searchSuppressionsVerb = defineVerb({
  name: 'suppressions.search',
  scope: 'any',
  input: SearchSuppressionsInput,
  mutates: false,
  run: async (ctx, input) => await searchSuppressions(ctx, input),
})
