import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  listOAuthClients,
  oauthClientErrors,
} from './clients'
import { CreateOAuthClientInput, ListOAuthClientsInput, OAuthClientRef } from './inputs'
import { purgeExpiredOAuth } from './purge'

export const listOAuthClientsVerb = defineVerb({
  name: 'oauth-clients.list',
  scope: 'admin:*',
  input: ListOAuthClientsInput,
  mutates: false,
  run: async (ctx, input) => await listOAuthClients(ctx, input),
})

export const getOAuthClientVerb = defineVerb({
  name: 'oauth-clients.get',
  scope: 'admin:*',
  input: OAuthClientRef,
  mutates: false,
  run: async (ctx, { id }) => await getOAuthClient(ctx, id),
})

export const createOAuthClientVerb = defineVerb({
  name: 'oauth-clients.create',
  scope: 'admin:*',
  input: CreateOAuthClientInput,
  mutates: true,
  secrets: ['client_secret'],
  check: oauthClientErrors,
  run: async (ctx, input) => await createOAuthClient(ctx, input),
})

export const deleteOAuthClientVerb = defineVerb({
  name: 'oauth-clients.delete',
  scope: 'admin:*',
  input: OAuthClientRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteOAuthClient(ctx, id),
})

/** The oauth.purge job: one chunk of expired codes, refresh tokens, revocations, dead grants and spent ID-JAG jtis. */
export const purgeOAuthVerb = defineVerb({
  name: 'oauth.purge',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await purgeExpiredOAuth(ctx),
})
