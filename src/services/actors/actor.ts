import type { ApiKeyTier } from '../../lib/enums'
import { ADMIN_SCOPE, hasScope, SCOPES, type Scope } from '../../lib/scopes'

// Who is calling, whatever the door. Every credential maps onto this one
// shape: the scopes it holds and the client (workspace) it acts in; what is particular to a
// kind of credential (a key's id and tier, a portal user's role and allowed clients) rides
// along as optional detail. Tenancy (src/db/tenant.ts) reads only `clientId`.

export type ActorKind = 'key' | 'agent' | 'user' | 'oauth' | 'system' | 'anonymous'
export type PortalRole = 'owner' | 'admin' | 'member' | 'viewer'

export interface Actor {
  readonly kind: ActorKind
  /** Key id, user id, token subject, or a name for the system (`console`, `job:…`). */
  readonly id: string
  /** The client the actor acts in; null = platform-wide (sees every client). */
  readonly clientId: string | null
  readonly scopes: readonly string[]
  /** API keys (agent keys included). */
  readonly key?: { readonly id: string; readonly tier: ApiKeyTier }
  /** Portal users: the role and the clients a `member` may switch to (null = every client). */
  readonly user?: { readonly role: PortalRole; readonly clients: readonly string[] | null }
}

export function keyActor(key: {
  id: string
  clientId: string | null
  scopes: readonly string[]
  tier: ApiKeyTier
  agent?: boolean
}): Actor {
  return {
    kind: key.agent ? 'agent' : 'key',
    id: key.id,
    clientId: key.clientId,
    scopes: key.scopes,
    key: { id: key.id, tier: key.tier },
  }
}

const READ_SCOPES = SCOPES.filter((s) => s.endsWith(':read'))
const MEMBER_SCOPES = SCOPES.filter((s) => s !== ADMIN_SCOPE)

/** What a role may do: owners and admins everything, members all but administration, viewers read. */
export function scopesOfRole(role: PortalRole): readonly Scope[] {
  if (role === 'owner' || role === 'admin') return [ADMIN_SCOPE]
  return role === 'member' ? MEMBER_SCOPES : READ_SCOPES
}

/**
 * A portal user working in one workspace. Owners and admins without a chosen workspace act
 * platform-wide; a member always acts in one of its clients.
 */
export function userActor(user: {
  id: string
  role: PortalRole
  clients: readonly string[] | null
  workspace: string | null
}): Actor {
  return {
    kind: 'user',
    id: user.id,
    clientId: user.workspace,
    scopes: scopesOfRole(user.role),
    user: { role: user.role, clients: user.clients },
  }
}

/**
 * Whether the actor's authority spans every client: a platform-wide key or token, or a portal
 * owner or admin (who may be working in one workspace, but could switch to any).
 */
export const spansEveryClient = (actor: Actor) =>
  actor.clientId === null || (actor.user !== undefined && actor.user.clients === null)

/** An OAuth access token: its scopes and its `tenant` claim. */
export function oauthActor(token: {
  subject: string
  tenant: string | null
  scopes: readonly string[]
}): Actor {
  return { kind: 'oauth', id: token.subject, clientId: token.tenant, scopes: token.scopes }
}

/** Herald itself (scheduled jobs, the operator at the console): platform-wide, every scope. */
export function systemActor(name: string): Actor {
  return { kind: 'system', id: name, clientId: null, scopes: [ADMIN_SCOPE] }
}

/** No credential: may call only public verbs (health, well-known documents). */
export const ANONYMOUS: Actor = { kind: 'anonymous', id: 'anonymous', clientId: null, scopes: [] }

/** The requested scopes the role can grant, and those it cannot. */
export function grantableScopes(role: PortalRole, requested: readonly string[]) {
  const held = scopesOfRole(role)
  return {
    allowed: requested.filter((s) => hasScope(held, s as Scope)),
    refused: requested.filter((s) => !hasScope(held, s as Scope)),
  }
}
