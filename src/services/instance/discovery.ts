import type { AppContext } from '../../context'
import { SCOPES } from '../../lib/scopes'

/** RFC 9728 protected-resource metadata: this server is both resource and authorization server. */
export function protectedResourceMetadata(ctx: AppContext) {
  return {
    resource: ctx.config.publicUrl,
    authorization_servers: [ctx.config.publicUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Herald',
    resource_documentation: `${ctx.config.publicUrl}/docs`,
  }
}
