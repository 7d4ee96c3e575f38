import { VERSION } from '../../version'
import type { Json } from '../openapi/schemas'
import { prompts } from './prompt-list'
import { resourceTemplates } from './resource-list'
import type { ToolCatalog } from './tools'
import { MCP_PATH, PROTOCOL_VERSIONS } from './versions'

// The server card (MCP server-card extension, SEP-2127): what a client or registry reads
// before connecting — where the endpoint is, which revisions it speaks, how to authenticate,
// and a summary of every tool (a key sees the subset its scopes allow).

export const SERVER_CARD_TYPE = 'application/mcp-server-card+json'

/** `https://mail.example.com` → `com.example.mail/herald`. */
function reverseDnsName(publicUrl: string): string {
  const host = new URL(publicUrl).hostname
  const reversed = /^[\d.]+$/.test(host) || !host.includes('.') ? host : host.split('.').reverse().join('.')
  return `${reversed}/herald`
}

export function buildServerCard(catalog: ToolCatalog, publicUrl: string): Json {
  const endpoint = `${publicUrl}${MCP_PATH}`
  const metadata = `${publicUrl}/.well-known/oauth-protected-resource${MCP_PATH}`
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: reverseDnsName(publicUrl),
    title: 'Herald',
    description:
      'Email and SMS marketing and sales engagement: contacts, lists, segments, templates, campaigns, messages, webhooks and stats. Tools follow the REST API and its scopes.',
    version: VERSION,
    websiteUrl: `${publicUrl}/docs`,
    remotes: [
      {
        type: 'streamable-http',
        url: endpoint,
        supportedProtocolVersions: PROTOCOL_VERSIONS,
        headers: [
          {
            name: 'Authorization',
            description:
              'Bearer <API key> (hrld_…) or an OAuth access token; an X-Api-Key header works too for keys',
            isRequired: true,
            isSecret: true,
          },
        ],
      },
    ],
    authentication: {
      required: true,
      schemes: ['bearer'],
      methods: [
        {
          type: 'api-key',
          description:
            'A Herald API key (hrld_…) sent as Authorization: Bearer. Create one in the portal (/admin/api-keys) or with `herald keys create`; its scopes decide which tools are listed.',
        },
        {
          type: 'oauth2',
          description:
            'OAuth 2.1 access tokens from Herald’s own authorization server (code flow with PKCE S256, dynamic registration), discovered from the protected-resource metadata.',
          available: true,
        },
      ],
      protectedResourceMetadata: metadata,
    },
    capabilities: { tools: {}, resources: {}, prompts: {} },
    tools: catalog.all.map((d) => ({
      name: d.name,
      title: d.tool.title,
      readOnly: (d.tool.annotations as Json).readOnlyHint,
      destructive: (d.tool.annotations as Json).destructiveHint,
      requiredScope: d.operation.auth === 'any' ? null : d.operation.auth,
    })),
    resources: resourceTemplates.map((r) => ({
      uriTemplate: r.uriTemplate,
      name: r.name,
      description: r.description,
    })),
    prompts: prompts.map((p) => ({ name: p.name, description: p.description })),
  }
}
