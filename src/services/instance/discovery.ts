import type { AppContext } from '../../context'
import { OAUTH_SCOPES } from '../../lib/scopes'

/**
 * RFC 9728 protected-resource metadata: this server is both resource and authorization server
 * (and, in external identity provider mode, trusts that provider's tokens as well).
 * `path` names a resource below the REST API's (`/mcp/v1`, whose document is at
 * `/.well-known/oauth-protected-resource/mcp/v1`).
 */
export function protectedResourceMetadata(ctx: AppContext, path = '') {
  return {
    resource: `${ctx.config.publicUrl}${path}`,
    // In external identity provider mode its tokens are accepted too (src/services/oauth/external.ts).
    authorization_servers: ctx.config.oauthExternalIssuer
      ? [ctx.config.publicUrl, ctx.config.oauthExternalIssuer]
      : [ctx.config.publicUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Herald',
    resource_documentation: `${ctx.config.publicUrl}/docs`,
  }
}
