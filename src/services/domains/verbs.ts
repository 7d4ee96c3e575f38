import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { createDomain, prepareDomain } from './create'
import {
  CreateDomainInput,
  DomainRef,
  FilterDomainsInput,
  ListDomainsInput,
  UpdateDomainInput,
} from './inputs'
import { deleteDomain, getDomain, listDomains } from './read'
import { updateDomain } from './update'
import { applyRechecks, lookUpDomain, recheckDomains, recordChecks } from './verify'

export const listDomainsVerb = defineVerb({
  name: 'domains.list',
  scope: 'any',
  input: ListDomainsInput,
  mutates: false,
  run: async (ctx, input) => await listDomains(ctx, input),
})

export const filterDomainsVerb = defineVerb({
  name: 'domains.list-filtered',
  scope: 'any',
  input: FilterDomainsInput,
  mutates: false,
  run: async (ctx, input) => await listDomains(ctx, input),
})

export const createDomainVerb = defineVerb({
  name: 'domains.create',
  scope: 'admin:*',
  input: CreateDomainInput,
  mutates: true,
  // The 2048-bit DKIM key is generated off the event loop, before the transaction.
  prepare: async (ctx, { client_id, ...fields }) => await prepareDomain(ctx, client_id, fields),
  run: async (ctx, _input, prepared) => await createDomain(ctx, prepared),
})

export const getDomainVerb = defineVerb({
  name: 'domains.get',
  scope: 'any',
  input: DomainRef,
  mutates: false,
  run: async (ctx, { id }) => await getDomain(ctx, id),
})

export const updateDomainVerb = defineVerb({
  name: 'domains.update',
  scope: 'admin:*',
  input: UpdateDomainInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateDomain(ctx, id, patch),
})

export const deleteDomainVerb = defineVerb({
  name: 'domains.delete',
  scope: 'admin:*',
  input: DomainRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteDomain(ctx, id),
})

export const verifyDomainVerb = defineVerb({
  name: 'domains.verify',
  scope: 'any',
  input: DomainRef,
  mutates: true,
  // The DNS look-ups run outside the transaction; their outcome is written in it.
  prepare: async (ctx, { id }) => await lookUpDomain(ctx, id),
  run: async (ctx, _input, looked) => await recordChecks(ctx, looked),
})

/** The daily job: every verified domain's DNS again; those that no longer pass become broken. */
export const reverifyDomainsVerb = defineVerb({
  name: 'domains.reverify',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  prepare: async (ctx) => await recheckDomains(ctx),
  run: async (ctx, _input, rechecked) => await applyRechecks(ctx, rechecked),
})
