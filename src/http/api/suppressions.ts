import { Type as t } from '@sinclair/typebox'
import { SUPPRESSION_SOURCES } from '../../lib/enums'
import {
  addSuppressionVerb,
  listSuppressionsVerb,
  removeSuppressionVerb,
} from '../../services/suppressions/verbs'
import { DateTime, dataOf, pageOf, Uuid } from '../../services/verbs/schemas'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const Suppression = named(
  'Suppression',
  t.Object({
    id: Uuid,
    client_id: Uuid,
    email: t.String({ format: 'email' }),
    reason: t.Union([t.String(), t.Null()]),
    source: t.Union(SUPPRESSION_SOURCES.map((s) => t.Literal(s))),
    created_at: DateTime,
  }),
)

const tag = 'Suppressions'

export const suppressionOperations = [
  route(listSuppressionsVerb, {
    id: 'listSuppressions',
    method: 'GET',
    path: '/api/v1/suppressions',
    tag,
    summary: 'List suppressed addresses',
    query: ['limit', 'cursor', 'client_id'],
    answer: 'as-is',
    response: pageOf(Suppression),
  }),
  route(addSuppressionVerb, {
    id: 'addSuppression',
    method: 'POST',
    path: '/api/v1/suppressions',
    tag,
    summary: 'Suppress an address for this client (case-insensitive; already suppressed is not an error)',
    query: ['client_id'],
    response: dataOf(Suppression),
  }),
  route(removeSuppressionVerb, {
    id: 'removeSuppression',
    method: 'DELETE',
    path: '/api/v1/suppressions/{email}',
    tag,
    rawParams: ['email'],
    query: ['client_id'],
    summary: 'Lift a suppression (a platform-wide key may need client_id)',
    response: dataOf(t.Composite([Suppression, t.Object({ deleted: t.Boolean() })])),
  }),
]
