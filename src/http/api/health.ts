import { Type as t } from '@sinclair/typebox'
import { healthVerb } from '../../services/instance/verbs'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

export const healthOperations = [
  route(healthVerb, {
    id: 'getHealth',
    method: 'GET',
    path: '/api/v1/health',
    tag: 'System',
    summary: 'Health check (no authentication)',
    answer: 'as-is',
    response: named(
      'Health',
      t.Object({
        status: t.String(),
        version: t.String(),
        timestamp: t.String({ format: 'date-time' }),
      }),
    ),
  }),
]
