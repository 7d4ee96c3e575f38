import { Type as t } from '@sinclair/typebox'
import { CONSENT_ACTIONS, CONSENT_SOURCES, CONTACT_STATUSES } from '../../lib/enums'
import { listConsentsVerb } from '../../services/consents/verbs'
import {
  accessExportVerb,
  createContactVerb,
  eraseContactVerb,
  getContactVerb,
  listContactsVerb,
  searchContactsVerb,
  updateContactVerb,
} from '../../services/contacts/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { ID_PATTERN, named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Str = (max: number) => t.Union([t.String({ maxLength: max }), t.Null()])

export const Contact = named(
  'Contact',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    email: t.String({ format: 'email' }),
    first_name: Str(200),
    last_name: Str(200),
    company: Str(200),
    phone: t.Union([t.String({ description: 'E.164' }), t.Null()]),
    status: named('ContactStatus', t.Union(CONTACT_STATUSES.map((s) => t.Literal(s)))),
    sms_opt_out: t.Boolean({ description: 'Replied STOP: no SMS, voice, WhatsApp or RCS is sent' }),
    timezone: t.Union([t.String(), t.Null()]),
    custom_fields: t.Record(t.String(), t.Unknown()),
    created_at: DateTime,
    updated_at: DateTime,
  }),
)

const Consent = named(
  'Consent',
  t.Object({
    contact_id: Uuid,
    list_id: t.Union([Uuid, t.Null()]),
    list_name: t.Union([t.String(), t.Null()]),
    action: t.Union(CONSENT_ACTIONS.map((a) => t.Literal(a))),
    source: t.Union(CONSENT_SOURCES.map((a) => t.Literal(a))),
    form_id: t.Union([Uuid, t.Null()]),
    ip: t.Union([t.String(), t.Null()]),
    user_agent: t.Union([t.String(), t.Null()]),
    consent_text: t.Union([t.String(), t.Null()]),
    at: DateTime,
  }),
)

const tag = 'Contacts'
const ITEM = '/api/v1/contacts/{id}'

export const contactOperations = [
  route(listContactsVerb, {
    id: 'listContacts',
    method: 'GET',
    path: '/api/v1/contacts',
    tag,
    summary: 'List contacts, newest first',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Contact),
  }),
  route(createContactVerb, {
    id: 'createContact',
    method: 'POST',
    path: '/api/v1/contacts',
    tag,
    summary: 'Create a contact (email unique per client, case-insensitive; 409 with details.existing_id)',
    query: ['client_id'],
    response: dataOf(Contact),
    example: {
      request: {
        email: 'ann.lee@acme.io',
        first_name: 'Ann',
        last_name: 'Lee',
        company: 'Acme',
        phone: '+14155550123',
        timezone: 'America/Los_Angeles',
        custom_fields: { plan: 'pro' },
      },
      response: {
        data: {
          id: '0193a4f2-9b8c-7d6e-8f01-23456789abcd',
          client_id: '0193a4f0-0000-7000-8000-000000000001',
          email: 'ann.lee@acme.io',
          first_name: 'Ann',
          last_name: 'Lee',
          company: 'Acme',
          phone: '+14155550123',
          status: 'subscribed',
          sms_opt_out: false,
          timezone: 'America/Los_Angeles',
          custom_fields: { plan: 'pro' },
          created_at: '2026-11-22T05:21:00.000Z',
          updated_at: '2026-11-22T05:21:00.000Z',
        },
      },
    },
  }),
  route(searchContactsVerb, {
    id: 'searchContacts',
    method: 'POST',
    path: '/api/v1/contacts/search',
    tag,
    summary: 'Search contacts: every term matches the start of a word of email, names, company or phone',
    documented: {
      client_id: t.String({
        pattern: ID_PATTERN,
        description:
          'Platform-wide keys: optional filter, one client’s contacts only (UUID or cli_… id). Tenant-scoped keys: ignored.',
      }),
    },
    answer: 'as-is',
    response: pageOf(Contact),
  }),
  route(getContactVerb, {
    id: 'getContact',
    method: 'GET',
    path: ITEM,
    tag,
    summary: 'Get a contact',
    response: dataOf(Contact),
  }),
  route(updateContactVerb, {
    id: 'updateContact',
    method: 'PATCH',
    path: ITEM,
    tag,
    summary: 'Update a contact (partial; custom_fields merge member by member, null removes)',
    response: dataOf(Contact),
  }),
  route(eraseContactVerb, {
    id: 'deleteContact',
    method: 'DELETE',
    path: ITEM,
    tag,
    summary: 'Erase a contact (GDPR): personal data removed, anonymised event counts kept',
    response: dataOf(t.Object({ id: Uuid, deleted: t.Boolean() })),
  }),
  route(listConsentsVerb, {
    id: 'listContactConsents',
    method: 'GET',
    path: `${ITEM}/consents`,
    tag,
    summary: 'Consent records of a contact: every subscribe, confirm and unsubscribe, newest first',
    query: ['limit', 'cursor'],
    answer: 'as-is',
    response: pageOf(Consent),
  }),
  route(accessExportVerb, {
    id: 'exportContactData',
    method: 'GET',
    path: `${ITEM}/export`,
    tag,
    summary:
      'Everything held about one person (an access request): fields, memberships, consents, messages without bodies, events, replies, suppressions',
    response: dataOf(t.Object({}, { additionalProperties: true })),
  }),
]
