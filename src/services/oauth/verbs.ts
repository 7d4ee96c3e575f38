import { defineVerb } from '../verbs/define'
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  listOAuthClients,
  oauthClientErrors,
} from './clients'
import { CreateOAuthClientInput, ListOAuthClientsInput, OAuthClientRef } from './inputs'

export const listOAuthClientsVerb = defineVerb({
  name: 'oauth-clients.list',
  scope: 'admin:*',
  input: ListOAuthClientsInput,
  mutates: false,
  run: (ctx, input) => listOAuthClients(ctx, input),
})

export const getOAuthClientVerb = defineVerb({
  name: 'oauth-clients.get',
  scope: 'admin:*',
  input: OAuthClientRef,
  mutates: false,
  run: (ctx, { id }) => getOAuthClient(ctx, id),
})

export const createOAuthClientVerb = defineVerb({
  name: 'oauth-clients.create',
  scope: 'admin:*',
  input: CreateOAuthClientInput,
  mutates: true,
  check: oauthClientErrors,
  run: (ctx, input) => createOAuthClient(ctx, input),
})

export const deleteOAuthClientVerb = defineVerb({
  name: 'oauth-clients.delete',
  scope: 'admin:*',
  input: OAuthClientRef,
  mutates: true,
  destructive: true,
  run: (ctx, { id }) => deleteOAuthClient(ctx, id),
})
