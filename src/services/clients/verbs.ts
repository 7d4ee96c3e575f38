import type { FieldError } from '../../lib/validate'
import { isTimeZone } from '../contacts/normalize'
import { defineVerb } from '../verbs/define'
import { createClient } from './create'
import { ClientRef, CreateClientInput, ListClientsInput, UpdateClientInput } from './inputs'
import { getClient, listClients } from './read'
import { updateClient } from './update'

// The same check as a contact's time zone (null clears it).
const timezoneCheck = (input: { timezone?: string | null }): FieldError[] =>
  input.timezone != null && !isTimeZone(input.timezone)
    ? [{ field: 'timezone', message: 'must be an IANA time zone name, e.g. Europe/Paris' }]
    : []

export const listClientsVerb = defineVerb({
  name: 'clients.list',
  scope: 'any',
  input: ListClientsInput,
  mutates: false,
  run: async (ctx, input) => await listClients(ctx, input),
})

// Any credential may ask; the service refuses a tenant-scoped one (a platform-wide key is needed).
export const createClientVerb = defineVerb({
  name: 'clients.create',
  scope: 'any',
  input: CreateClientInput,
  mutates: true,
  check: timezoneCheck,
  run: async (ctx, input) => await createClient(ctx, input),
})

export const getClientVerb = defineVerb({
  name: 'clients.get',
  scope: 'any',
  input: ClientRef,
  mutates: false,
  run: async (ctx, { id }) => await getClient(ctx, id),
})

// Renaming or suspending a client (every key and token of a suspended one is refused) changes
// the instance: admin:*, not merely a platform-wide key.
export const updateClientVerb = defineVerb({
  name: 'clients.update',
  scope: 'admin:*',
  input: UpdateClientInput,
  mutates: true,
  check: timezoneCheck,
  run: async (ctx, { id, ...patch }) => await updateClient(ctx, id, patch),
})
