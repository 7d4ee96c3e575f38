import type { AppContext } from '../../context'
import { OAUTH_SCOPES } from '../../lib/scopes'

/**
 * RFC 9728 protected-resource metadata: this server is both resource and authorization server.
 * `path` names a resource below the REST API's (`/mcp/v1`, whose document is at
 * `/.well-known/oauth-protected-resource/mcp/v1`).
 */
export function protectedResourceMetadata(ctx: AppContext, path = '') {
  return {
    resource: `${ctx.config.publicUrl}${path}`,
    authorization_servers: [ctx.config.publicUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Herald',
    resource_documentation: `${ctx.config.publicUrl}/docs`,
  }
}
