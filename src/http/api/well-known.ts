import { Type as t } from '@sinclair/typebox'
import { SCOPES } from '../../lib/scopes'
import { publicOp } from '../operation'

/** RFC 9728 protected-resource metadata: this server is both resource and authorization server. */
export const wellKnownOperations = [
  publicOp({
    id: 'getProtectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    tag: 'Discovery',
    summary: 'OAuth 2.0 protected resource metadata (RFC 9728)',
    response: t.Object({
      resource: t.String(),
      authorization_servers: t.Array(t.String()),
      scopes_supported: t.Array(t.String()),
      bearer_methods_supported: t.Array(t.String()),
      resource_name: t.String(),
      resource_documentation: t.String(),
    }),
    handle: (ctx) => ({
      resource: ctx.config.publicUrl,
      authorization_servers: [ctx.config.publicUrl],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Herald',
      resource_documentation: `${ctx.config.publicUrl}/docs`,
    }),
  }),
]
