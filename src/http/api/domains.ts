import { Type as t } from '@sinclair/typebox'
import { createDomain } from '../../services/domains/create'
import { deleteDomain, getDomain, listDomains } from '../../services/domains/read'
import { verifyDomain } from '../../services/domains/verify'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  Nullable,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const DnsRecord = t.Object({
  purpose: t.Union([t.Literal('dkim'), t.Literal('spf'), t.Literal('dmarc')]),
  type: t.Literal('TXT'),
  name: t.String(),
  value: t.String({ description: 'The whole record text' }),
  value_parts: t.Optional(
    t.Array(t.String(), { description: 'DKIM: the ≤255-character strings of the record' }),
  ),
})

const Check = t.Object({
  verified: t.Boolean(),
  outcome: t.Union([t.Literal('pass'), t.Literal('fail'), t.Literal('error')]),
  message: t.String({ description: 'What was found, and what to change when the check fails' }),
  found: t.Array(t.String()),
})

const Domain = t.Object({
  id: Uuid,
  client_id: Uuid,
  domain: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('verified'), t.Literal('broken')]),
  verified: t.Boolean({ description: 'DKIM and SPF pass' }),
  dkim_verified: t.Boolean(),
  spf_verified: t.Boolean(),
  dmarc_verified: t.Boolean(),
  dkim_selector: t.String(),
  dns_records: t.Array(DnsRecord),
  verification: Nullable(t.Object({ checked_at: DateTime, dkim: Check, spf: Check, dmarc: Check })),
  verified_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
})

const DomainInput = t.Object({ domain: t.String({ minLength: 1, maxLength: 253 }) }, strict)

const tag = 'Domains'

export const domainOperations = [
  op({
    id: 'listDomains',
    method: 'GET',
    path: '/api/v1/domains',
    tag,
    auth: 'any',
    summary: 'List sending domains',
    query: ClientPageQuery,
    response: pageOf(Domain),
    handle: (ctx, { query }) => listDomains(ctx, query),
  }),
  op({
    id: 'createDomain',
    method: 'POST',
    path: '/api/v1/domains',
    tag,
    auth: 'admin:*',
    summary: 'Add a sending domain: generates its DKIM key and returns the DNS records to publish',
    query: CreateQuery,
    body: DomainInput,
    response: dataOf(Domain),
    handle: async (ctx, { query, body }) => ({ data: await createDomain(ctx, query.client_id, body) }),
  }),
  op({
    id: 'getDomain',
    method: 'GET',
    path: '/api/v1/domains/{id}',
    tag,
    auth: 'any',
    summary: 'Get a sending domain',
    response: dataOf(Domain),
    handle: (ctx, { params }) => ({ data: getDomain(ctx, params.id!) }),
  }),
  op({
    id: 'deleteDomain',
    method: 'DELETE',
    path: '/api/v1/domains/{id}',
    tag,
    auth: 'admin:*',
    destructive: true,
    summary: 'Delete a sending domain (its senders become unverified)',
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
    handle: (ctx, { params }) => ({ data: deleteDomain(ctx, params.id!) }),
  }),
  op({
    id: 'verifyDomain',
    method: 'POST',
    path: '/api/v1/domains/{id}/verify',
    tag,
    auth: 'any',
    summary: 'Check the DKIM, SPF and DMARC records in DNS now; failing checks say what to change',
    response: dataOf(Domain),
    handle: async (ctx, { params }) => ({ data: await verifyDomain(ctx, params.id!) }),
  }),
]
