import { Type as t } from '@sinclair/typebox'
import {
  createDomainVerb,
  deleteDomainVerb,
  getDomainVerb,
  listDomainsVerb,
  updateDomainVerb,
  verifyDomainVerb,
} from '../../services/domains/verbs'
import { DateTime, dataOf, Nullable, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const DnsRecord = named(
  'DnsRecord',
  t.Object({
    purpose: t.Union([t.Literal('dkim'), t.Literal('spf'), t.Literal('dmarc')]),
    type: t.Literal('TXT'),
    name: t.String(),
    value: t.String({ description: 'The whole record text' }),
    value_parts: t.Optional(
      t.Array(t.String(), { description: 'DKIM: the ≤255-character strings of the record' }),
    ),
  }),
)

const Check = named(
  'DnsCheck',
  t.Object({
    verified: t.Boolean(),
    outcome: t.Union([t.Literal('pass'), t.Literal('fail'), t.Literal('error')]),
    message: t.String({ description: 'What was found, and what to change when the check fails' }),
    found: t.Array(t.String()),
  }),
)

const Domain = named(
  'Domain',
  t.Object({
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
    warmup: t.Boolean({
      description: 'Whether its mail is under the warm-up cap (new domains: HERALD_WARMUP)',
    }),
    warmup_progress: Nullable(
      t.Object(
        {
          started_at: DateTime,
          day: t.Integer({ description: 'Day of the warm-up, 1 on the day of the first send' }),
          daily_cap: t.Integer({ description: "Today's cap (UTC day)" }),
          sent_today: t.Integer(),
        },
        { description: 'While it warms up; null when warm-up is off, not started or over' },
      ),
    ),
    verified_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const tag = 'Domains'
const ITEM = '/api/v1/domains/{id}'

export const domainOperations = [
  route(listDomainsVerb, {
    id: 'listDomains',
    method: 'GET',
    path: '/api/v1/domains',
    tag,
    summary: 'List sending domains',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Domain),
  }),
  route(createDomainVerb, {
    id: 'createDomain',
    method: 'POST',
    path: '/api/v1/domains',
    tag,
    summary: 'Add a sending domain: generates its DKIM key and returns the DNS records to publish',
    query: ['client_id'],
    response: dataOf(Domain),
  }),
  route(getDomainVerb, {
    id: 'getDomain',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a sending domain',
    response: dataOf(Domain),
  }),
  route(updateDomainVerb, {
    id: 'updateDomain',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a sending domain: {"warmup": false} lifts the warm-up cap of a domain with a reputation',
    response: dataOf(Domain),
  }),
  route(deleteDomainVerb, {
    id: 'deleteDomain',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Delete a sending domain (its senders become unverified)',
    response: dataOf(t.Object({ id: Uuid, client_id: Uuid, deleted: t.Boolean() })),
  }),
  route(verifyDomainVerb, {
    id: 'verifyDomain',
    method: 'POST',
    path: `${ITEM}/verify`,
    tag,
    summary: 'Check the DKIM, SPF and DMARC records in DNS now; failing checks say what to change',
    response: dataOf(Domain),
  }),
]
