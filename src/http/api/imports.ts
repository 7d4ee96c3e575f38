import { Type as t } from '@sinclair/typebox'
import { exportContacts } from '../../services/contacts/export'
import { createImport, getImport, IMPORT_LIMIT } from '../../services/imports/create'
import { DateTime, dataOf, strict, Uuid } from '../../services/verbs/schemas'
import { op } from '../operation'

const Import = t.Object({
  id: Uuid,
  client_id: Uuid,
  status: t.Union([t.Literal('queued'), t.Literal('running'), t.Literal('completed'), t.Literal('failed')]),
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
})
const ImportQuery = t.Object(
  {
    client_id: t.Optional(t.String()),
    list_id: t.Optional(t.String()),
    update_existing: t.Optional(t.Boolean()),
  },
  strict,
)

const tag = 'Contacts'

export const importOperations = [
  op({
    id: 'createContactImport',
    method: 'POST',
    path: '/api/v1/contacts/imports',
    tag,
    auth: 'contacts:write',
    summary: 'Import contacts from CSV (text/csv body or multipart "file"); runs in the background',
    description:
      'The header row maps columns to fields (email required); other columns become custom fields. ' +
      'Delimiter (, ; or tab) is detected; BOM, quotes and CRLF are handled. Poll GET /api/v1/contacts/imports/{id} for progress.',
    query: ImportQuery,
    stream: {
      contentTypes: ['text/csv', 'multipart/form-data', 'application/octet-stream'],
      limit: IMPORT_LIMIT,
    },
    response: dataOf(Import),
    handle: async (ctx, { upload, query }) => ({ data: await createImport(ctx, upload!, query) }),
  }),
  op({
    id: 'getContactImport',
    method: 'GET',
    path: '/api/v1/contacts/imports/{id}',
    tag,
    auth: 'any',
    summary: 'Progress and outcome of an import',
    response: dataOf(Import),
    handle: (ctx, { params }) => ({ data: getImport(ctx, params.id!) }),
  }),
  op({
    id: 'exportContacts',
    method: 'GET',
    path: '/api/v1/contacts/export',
    tag,
    auth: 'contacts:read',
    summary: 'Stream contacts as CSV',
    query: t.Object({ client_id: t.Optional(t.String()) }, strict),
    response: t.String({ description: 'text/csv' }),
    handle: (ctx, { query }) => exportContacts(ctx, query),
  }),
]
