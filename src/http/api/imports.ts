import { Type as t } from '@sinclair/typebox'
import { IMPORT_STATUSES } from '../../lib/enums'
import { exportContactsVerb } from '../../services/contacts/verbs'
import { IMPORT_LIMIT } from '../../services/imports/create'
import { createImportVerb, getImportVerb } from '../../services/imports/verbs'
import { DateTime, dataOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Import = named(
  'ContactImport',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    status: t.Union(IMPORT_STATUSES.map((s) => t.Literal(s))),
    list_id: t.Union([Uuid, t.Null()]),
    update_existing: t.Boolean(),
    total_rows: t.Union([t.Integer(), t.Null()]),
    processed: t.Integer(),
    inserted: t.Integer(),
    updated: t.Integer(),
    skipped: t.Integer(),
    errors: t.Array(t.Object({ row: t.Integer(), message: t.String() }), {
      description: 'First 100 rows that could not be imported',
    }),
    failure: t.Union([t.String(), t.Null()]),
    created_at: DateTime,
    updated_at: DateTime,
    finished_at: t.Union([DateTime, t.Null()]),
  }),
)

const tag = 'Contacts'

export const importOperations = [
  route(createImportVerb, {
    id: 'createContactImport',
    method: 'POST',
    path: '/api/v1/contacts/imports',
    tag,
    summary: 'Import contacts from CSV (text/csv body or multipart "file"); runs in the background',
    description:
      'The header row maps columns to fields (email required); other columns become custom fields. ' +
      'Delimiter (, ; or tab) is detected; BOM, quotes and CRLF are handled. Poll GET /api/v1/contacts/imports/{id} for progress.',
    query: ['client_id', 'list_id', 'update_existing'],
    stream: {
      contentTypes: ['text/csv', 'multipart/form-data', 'application/octet-stream'],
      limit: IMPORT_LIMIT,
      part: 'file',
    },
    response: dataOf(Import),
  }),
  route(getImportVerb, {
    id: 'getContactImport',
    method: 'GET',
    path: '/api/v1/contacts/imports/{id}',
    tag,
    summary: 'Progress and outcome of an import',
    response: dataOf(Import),
  }),
  route(exportContactsVerb, {
    id: 'exportContacts',
    method: 'GET',
    path: '/api/v1/contacts/export',
    tag,
    summary: 'Stream contacts as CSV',
    query: ['client_id', 'raw'],
    answer: 'download',
    mediaType: 'text/csv',
    response: t.String({ description: 'CSV with a header row' }),
  }),
]
