import type { AppContext } from '../../context'
import type { OAuthClientRow } from '../../db/schema'
import { parseId } from '../../lib/ids'
import { grantableScopes } from '../actors/actor'
import { type PortalIdentity, workspacesOf } from '../users/access'
import type { AuthorizationRequest } from './authorize'
import { createAuthorizationCode } from './grants'

// What a signed-in user may grant on the consent page, and the grant itself: only
// scopes the user's role holds (at consent and again at each refresh), only for a workspace the
// user belongs to (and the client's own, if it was registered for one).

export type Consent =
  | { ok: true; code: string }
  | { ok: false; problem: 'workspace' }
  | { ok: false; problem: 'no_scope' }

/**
 * The workspaces the user may grant this client: their own, and of those only the client's
 * workspace when it was registered for one (it is held to it, as for its other grants).
 */
export async function consentWorkspaces(app: AppContext, user: PortalIdentity, client: OAuthClientRow) {
  const mine = await workspacesOf(app.db, user)
  return client.clientId === null ? mine : mine.filter((w) => w.id === client.clientId)
}

/** "Allow" with the chosen workspace and scopes: an authorization code, or why not. */
export async function allowConsent(
  app: AppContext,
  user: PortalIdentity,
  request: AuthorizationRequest,
  choice: { workspace: string | null; scopes: readonly string[] },
): Promise<Consent> {
  const workspaceId = parseId(choice.workspace ?? '')
  if (!workspaceId || !(await consentWorkspaces(app, user, request.client)).some((w) => w.id === workspaceId))
    return { ok: false, problem: 'workspace' }
  const scopes = grantableScopes(user.role, request.scopes).allowed.filter((s) => choice.scopes.includes(s))
  if (scopes.length === 0) return { ok: false, problem: 'no_scope' }
  const code = await createAuthorizationCode(app, {
    client: request.client,
    userId: user.id,
    tenant: workspaceId,
    scopes,
    redirectUri: request.redirectUri,
    redirectUriGiven: request.redirectUriGiven,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
  })
  return { ok: true, code }
}
