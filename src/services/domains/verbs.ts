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
  run: (ctx, input) => listDomains(ctx, input),
})

export const filterDomainsVerb = defineVerb({
  name: 'domains.list-filtered',
  scope: 'any',
  input: FilterDomainsInput,
  mutates: false,
  run: (ctx, input) => listDomains(ctx, input),
})

export const createDomainVerb = defineVerb({
  name: 'domains.create',
  scope: 'admin:*',
  input: CreateDomainInput,
  mutates: true,
  // The 2048-bit DKIM key is generated off the event loop, before the transaction.
  prepare: (ctx, { client_id, ...fields }) => prepareDomain(ctx, client_id, fields),
  run: (ctx, _input, prepared) => createDomain(ctx, prepared),
})

export const getDomainVerb = defineVerb({
  name: 'domains.get',
  scope: 'any',
  input: DomainRef,
  mutates: false,
  run: (ctx, { id }) => getDomain(ctx, id),
})

export const updateDomainVerb = defineVerb({
  name: 'domains.update',
  scope: 'admin:*',
  input: UpdateDomainInput,
  mutates: true,
  run: (ctx, { id, ...patch }) => updateDomain(ctx, id, patch),
})

export const deleteDomainVerb = defineVerb({
  name: 'domains.delete',
  scope: 'admin:*',
  input: DomainRef,
  mutates: true,
  destructive: true,
  run: (ctx, { id }) => deleteDomain(ctx, id),
})

export const verifyDomainVerb = defineVerb({
  name: 'domains.verify',
  scope: 'any',
  input: DomainRef,
  mutates: true,
  // The DNS look-ups run outside the transaction; their outcome is written in it.
  prepare: (ctx, { id }) => lookUpDomain(ctx, id),
  run: (ctx, _input, looked) => recordChecks(ctx, looked),
})

/** The daily job: every verified domain's DNS again; those that no longer pass become broken. */
export const reverifyDomainsVerb = defineVerb({
  name: 'domains.reverify',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  prepare: (ctx) => recheckDomains(ctx),
  run: (ctx, _input, rechecked) => applyRechecks(ctx, rechecked),
})
