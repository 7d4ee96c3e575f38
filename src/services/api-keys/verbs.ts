import { defineVerb } from '../verbs/define'
import { ApiKeyRef, CreateApiKeyInput, ListApiKeysInput } from './inputs'
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from './records'

export const listApiKeysVerb = defineVerb({
  name: 'api-keys.list',
  scope: 'admin:*',
  input: ListApiKeysInput,
  mutates: false,
  run: async (ctx, input) => await listApiKeys(ctx, input),
})

/** One key by id (the portal's revoke confirmation names it). */
export const getApiKeyVerb = defineVerb({
  name: 'api-keys.get',
  scope: 'admin:*',
  input: ApiKeyRef,
  mutates: false,
  run: async (ctx, { id }) => await getApiKey(ctx, id),
})

export const createApiKeyVerb = defineVerb({
  name: 'api-keys.create',
  scope: 'admin:*',
  input: CreateApiKeyInput,
  mutates: true,
  secrets: ['key'],
  run: async (ctx, input) => await createApiKey(ctx, input),
})

export const revokeApiKeyVerb = defineVerb({
  name: 'api-keys.revoke',
  scope: 'admin:*',
  input: ApiKeyRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await revokeApiKey(ctx, id),
})
