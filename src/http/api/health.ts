import { Type as t } from '@sinclair/typebox'
import { health } from '../../services/instance/health'
import { publicOp } from '../operation'

export const healthOperations = [
  publicOp({
    id: 'getHealth',
    method: 'GET',
    path: '/api/v1/health',
    tag: 'System',
    summary: 'Health check (no authentication)',
    response: t.Object({
      status: t.String(),
      version: t.String(),
      timestamp: t.String({ format: 'date-time' }),
    }),
    handle: (ctx) => health(ctx),
  }),
]
