import { createApiKeyVerb } from '../../../services/api-keys/verbs'
import { clientConfigs } from '../../mcp/client-config'
import { ASSISTANT_PRESETS, type AssistantPreset } from '../../mcp/presets'
import { MCP_PATH } from '../../mcp/versions'
import { type FieldErrors, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page } from '../types'

// "Key for an AI assistant": an API key with a read-only or drafting preset of scopes,
// shown once with the MCP endpoint and ready-to-paste configuration for common clients. The key
// itself is made by the same verb as every other key.

const PATH = '/admin/api-keys/assistant'

const presets = Object.entries(ASSISTANT_PRESETS).map(([id, p]) => ({
  id,
  ...p,
  scopes: p.scopes.join(', '),
}))
const mcpUrl = (req: PortalRequest) => `${req.ctx.config.publicUrl}${MCP_PATH}`

function form(
  req: PortalRequest,
  errors: FieldErrors = {},
  given: Record<string, unknown> = {},
  status = 200,
) {
  return page(
    'pages/api-keys/assistant',
    'Key for an AI assistant',
    {
      errors,
      values: { name: 'AI assistant', preset: 'read-only', ...given },
      presets,
      mcp_url: mcpUrl(req),
      scope_of: req.workspace ? req.workspace.name : 'every workspace (platform-wide)',
    },
    status,
  )
}

export const assistantKeys = defineSection({
  path: PATH,
  title: 'Key for an AI assistant',
  order: 91,
  nav: false,
  roles: ['owner', 'admin'],
  routes: [
    { method: 'GET', path: PATH, handler: (req) => form(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) => {
        const chosen = text(req, 'preset') ?? ''
        const preset = ASSISTANT_PRESETS[chosen as AssistantPreset]
        if (!preset)
          return form(
            req,
            { preset: 'Choose read-only or drafting', _summary: 'Choose a preset.' },
            values(req),
            422,
          )
        return await submit(
          req,
          createApiKeyVerb,
          { name: text(req, 'name') ?? '', scopes: [...preset.scopes], tier: 'standard' },
          {
            // Shown in this answer only, like every new key.
            done: (key) =>
              page('pages/api-keys/assistant-created', 'Key for an AI assistant created', {
                key,
                preset: preset.label,
                mcp_url: mcpUrl(req),
                configs: clientConfigs(mcpUrl(req), key.key),
              }),
            retry: (errors) => form(req, errors, values(req)),
          },
        )
      },
    },
  ],
})
