import { OAUTH_SCOPES } from '../../../lib/scopes'
import {
  createOAuthClientVerb,
  deleteOAuthClientVerb,
  getOAuthClientVerb,
  listOAuthClientsVerb,
} from '../../../services/oauth/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { confirmedAction } from '../confirmed'
import { checkboxes, type FieldErrors, list, submit, text, values } from '../forms'
import { defineSection, type PortalRequest, page } from '../types'
import { indexRoute } from './links'

// OAuth clients: the applications that may ask users for access through
// /oauth2/authorize, and confidential ones that mint client-credentials tokens. The secret of a
// confidential client is shown once, on the answer to its creation (as for API keys).

const PATH = '/admin/oauth-clients'

function newForm(req: PortalRequest, errors: FieldErrors = {}, given: Record<string, unknown> = {}) {
  return page('pages/oauth-clients/new', 'New OAuth client', {
    errors,
    values: { name: '', redirect_uris: '', confidential: '', ...given },
    scopes: checkboxes(OAUTH_SCOPES, given.scopes as string[] | string | undefined),
    scope_of: req.workspace ? req.workspace.name : 'the default workspace',
  })
}

/** One redirect URI per line; blank lines ignored. */
const lines = (value: string | undefined) =>
  (value ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)

export const oauthClientsSection = defineSection({
  path: PATH,
  title: 'OAuth clients',
  order: 93,
  group: 'admin',
  roles: ['owner', 'admin'],
  routes: [
    indexRoute(PATH, listOAuthClientsVerb, {
      template: 'pages/oauth-clients/index',
      title: 'OAuth clients',
      rows: 'clients',
      more: (req) => ({
        authorize_url: `${req.ctx.config.publicUrl}/oauth2/authorize`,
        token_url: `${req.ctx.config.publicUrl}/oauth2/token`,
      }),
    }),
    { method: 'GET', path: `${PATH}/new`, handler: (req) => newForm(req) },
    {
      method: 'POST',
      path: PATH,
      handler: async (req) =>
        await submit(
          req,
          createOAuthClientVerb,
          {
            name: text(req, 'name') ?? '',
            redirect_uris: lines(text(req, 'redirect_uris')),
            confidential: text(req, 'confidential') === 'on',
            scopes: list(req, 'scopes'),
          },
          {
            // The secret is in this answer only (no redirect: a flash would store it).
            done: (client) => page('pages/oauth-clients/created', 'OAuth client registered', { client }),
            retry: (errors) => newForm(req, errors, { ...values(req), scopes: list(req, 'scopes') }),
          },
        ),
    },
    ...confirmedAction({
      path: `${PATH}/:id/delete`,
      back: PATH,
      find: async (req) => await invoke(getOAuthClientVerb, req.ctx, { id: req.params.id }),
      confirm: (client) => page('pages/oauth-clients/delete', `Delete ${client.name}`, { client }),
      act: async (req, client) => await invoke(deleteOAuthClientVerb, req.ctx, { id: client.id }),
      done: (client) => `Deleted the OAuth client “${client.name}”; its tokens no longer work.`,
    }),
  ],
})
