import { Type as t } from '@sinclair/typebox'
import { SUPPRESSION_SOURCES } from '../../lib/enums'
import { addSuppression, listSuppressions, removeSuppression } from '../../services/suppressions/manage'
import {
  ClientPageQuery,
  CreateQuery,
  DateTime,
  dataOf,
  pageOf,
  strict,
  Uuid,
} from '../../services/verbs/schemas'
import { op } from '../operation'

const Suppression = t.Object({
  id: Uuid,
  client_id: Uuid,
  email: t.String(),
  reason: t.Union([t.String(), t.Null()]),
  source: t.Union(SUPPRESSION_SOURCES.map((s) => t.Literal(s))),
  created_at: DateTime,
})
const SuppressionInput = t.Object(
  { email: t.String({ format: 'email', maxLength: 254 }), reason: t.Optional(t.String({ maxLength: 500 })) },
  strict,
)

const tag = 'Suppressions'

export const suppressionOperations = [
  op({
    id: 'listSuppressions',
    method: 'GET',
    path: '/api/v1/suppressions',
    tag,
    auth: 'any',
    summary: 'List suppressed addresses',
    query: ClientPageQuery,
    response: pageOf(Suppression),
    handle: (ctx, { query }) => listSuppressions(ctx, query),
  }),
  op({
    id: 'addSuppression',
    method: 'POST',
    path: '/api/v1/suppressions',
    tag,
    auth: 'compliance:read',
    summary: 'Suppress an address for this client (case-insensitive; already suppressed is not an error)',
    query: CreateQuery,
    body: SuppressionInput,
    response: dataOf(Suppression),
    handle: (ctx, { body, query }) => ({ data: addSuppression(ctx, body, query.client_id) }),
  }),
  op({
    id: 'removeSuppression',
    method: 'DELETE',
    path: '/api/v1/suppressions/{email}',
    tag,
    auth: 'compliance:read',
    destructive: true,
    rawParams: ['email'],
    query: CreateQuery,
    summary: 'Lift a suppression (a platform-wide key may need client_id)',
    response: dataOf(t.Composite([Suppression, t.Object({ deleted: t.Boolean() })])),
    handle: (ctx, { params, query }) => ({ data: removeSuppression(ctx, params.email!, query.client_id) }),
  }),
]
