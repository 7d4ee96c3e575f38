import { API_KEY_TIERS } from '../../../lib/enums'
import { SCOPES } from '../../../lib/scopes'
import {
  createApiKeyVerb,
  getApiKeyVerb,
  listApiKeysVerb,
  revokeApiKeyVerb,
} from '../../../services/api-keys/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { checkboxes, type FieldErrors, list, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page } from '../types'
import { indexRoute } from './links'

// API keys: the worked example of a portal section. The list shows each key's
// 12-character display prefix; a new key is shown once, on the answer to its creation (never
// stored for a later page); revoking asks for confirmation on a page of its own (works without
// JavaScript; app.js does not need to do anything for it).

const PATH = '/admin/api-keys'

function newForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/api-keys/new', 'New API key', {
    errors,
    values: { name: '', tier: 'standard', ...given },
    scopes: checkboxes(SCOPES, given.scopes as string[] | string | undefined),
    tiers: API_KEY_TIERS,
    scope_of: req.workspace ? req.workspace.name : 'every workspace (platform-wide)',
  })
}

export const apiKeys = defineSection({
  path: PATH,
  title: 'API keys',
  order: 90,
  group: 'admin',
  // The key verbs need admin:*, which only owners and admins hold.
  roles: ['owner', 'admin'],
  routes: [
    indexRoute(PATH, listApiKeysVerb, { template: 'pages/api-keys/index', title: 'API keys', rows: 'keys' }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          createApiKeyVerb,
          { name: text(req, 'name') ?? '', scopes: list(req, 'scopes'), tier: text(req, 'tier') },
          {
            // The key is in this answer only (no redirect: a flash would store it).
            done: (key) => page('pages/api-keys/created', 'API key created', { key }),
            retry: (errors) => {
              const given = values(req)
              return newForm(req, errors, { ...given, scopes: list(req, 'scopes') })
            },
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/revoke`,
      back: PATH,
      find: async (req) => await invoke(getApiKeyVerb, req.ctx, { id: req.params.id }),
      confirm: (key) => page('pages/api-keys/revoke', `Revoke ${key.name}`, { key }),
      act: async (req, key) => await invoke(revokeApiKeyVerb, req.ctx, { id: key.id }),
      done: (key) => `Revoked the key “${key.name}” (${key.prefix}…).`,
    }),
  ],
})
