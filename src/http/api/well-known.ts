import { Type as t } from '@sinclair/typebox'
import { mcpProtectedResourceVerb, protectedResourceVerb } from '../../services/instance/verbs'
import { named } from '../openapi/schemas'
import { route } from '../rest/define-operation'

const ProtectedResourceMetadata = named(
  'ProtectedResourceMetadata',
  t.Object({
    resource: t.String(),
    authorization_servers: t.Array(t.String()),
    scopes_supported: t.Array(t.String()),
    bearer_methods_supported: t.Array(t.String()),
    resource_name: t.String(),
    resource_documentation: t.String(),
  }),
)

export const wellKnownOperations = [
  route(protectedResourceVerb, {
    id: 'getProtectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    tag: 'Discovery',
    summary: 'OAuth 2.0 protected resource metadata (RFC 9728)',
    answer: 'as-is',
    response: ProtectedResourceMetadata,
    // Browser-based MCP clients (the MCP Inspector) read it from another origin.
    cors: true,
  }),
  route(mcpProtectedResourceVerb, {
    id: 'getMcpProtectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp/v1',
    tag: 'Discovery',
    summary: 'OAuth 2.0 protected resource metadata of the MCP endpoint /mcp/v1 (RFC 9728)',
    answer: 'as-is',
    response: ProtectedResourceMetadata,
    cors: true,
  }),
]
