import { and, asc, eq, isNull } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { clients, type OAuthClientRow, oauthClients, oauthGrants } from '../../db/schema'
import { credentialOwner, listFilter, visibleTo } from '../../db/tenant'
import { type FieldError, notFound } from '../../errors'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { newId, parseId } from '../../lib/ids'
import { iso, isoOrNull } from '../../lib/time'
import type { CreateOAuthClientInput, ListOAuthClientsInput } from './inputs'
import { redirectUriProblem } from './redirect-uris'

// OAuth clients registered by operators (admin:*). A confidential client gets a secret, shown
// once; a client with a workspace (`client_id`) mints client-credentials tokens for it.

export function presentOAuthClient(row: OAuthClientRow) {
  return {
    id: row.id,
    oauth_client_id: row.id,
    name: row.name,
    client_id: row.clientId,
    redirect_uris: row.redirectUris,
    confidential: row.confidential,
    scopes: row.scopes,
    source: row.source,
    created_at: iso(row.createdAt),
    deleted_at: isoOrNull(row.deletedAt),
  }
}

export const CLIENT_SECRET_PREFIX = 'hocs_'

/** The verb's member checks (run with the schema, so one 422 names every problem). */
export function oauthClientErrors(input: Partial<CreateOAuthClientInput>): FieldError[] {
  const errors: FieldError[] = []
  input.redirect_uris?.forEach((uri, i) => {
    const problem = redirectUriProblem(uri)
    if (problem) errors.push({ field: `redirect_uris[${i}]`, message: problem })
  })
  if (input.confidential === false && input.redirect_uris?.length === 0)
    errors.push({ field: 'redirect_uris', message: 'a public client needs at least one redirect URI' })
  return errors
}

export async function createOAuthClient(ctx: Ctx, input: CreateOAuthClientInput) {
  const clientId = await credentialOwner(ctx.db, ctx.actor, input.client_id)
  const secret = input.confidential ? `${CLIENT_SECRET_PREFIX}${randomBase62(32)}` : null
  const row = (
    await ctx.db
      .insert(oauthClients)
      .values({
        id: newId(),
        name: input.name,
        clientId,
        redirectUris: input.redirect_uris,
        confidential: input.confidential,
        secretHash: secret ? sha256Hex(secret) : null,
        scopes: input.scopes,
        source: 'operator',
        createdAt: ctx.clock.now(),
      })
      .returning()
  )[0]!
  return secret ? { ...presentOAuthClient(row), client_secret: secret } : presentOAuthClient(row)
}

export async function listOAuthClients(ctx: Ctx, page: ListOAuthClientsInput) {
  const where = and(
    isNull(oauthClients.deletedAt),
    listFilter(ctx.actor, oauthClients.clientId, page.client_id),
  )
  return await paginate(ctx.db, ctx.secretKey, oauthClients, oauthClients.id, where, page, presentOAuthClient)
}

async function visibleClient(ctx: Ctx, id: string) {
  const row = (
    await ctx.db
      .select()
      .from(oauthClients)
      .where(
        and(
          eq(oauthClients.id, id),
          isNull(oauthClients.deletedAt),
          visibleTo(ctx.actor, oauthClients.clientId),
        ),
      )
      .limit(1)
  )[0]
  if (!row) throw notFound('OAuth client')
  return row
}

export async function getOAuthClient(ctx: Ctx, id: string) {
  return presentOAuthClient(await visibleClient(ctx, id))
}

/** Deleting a client ends every grant it holds: its access and refresh tokens stop working at once. */
export async function deleteOAuthClient(ctx: Ctx, id: string) {
  await visibleClient(ctx, id)
  const now = ctx.clock.now()
  const row = (
    await ctx.db.update(oauthClients).set({ deletedAt: now }).where(eq(oauthClients.id, id)).returning()
  )[0]!
  await ctx.db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.oauthClientId, id), isNull(oauthGrants.revokedAt)))
  return presentOAuthClient(row)
}

/** A live client by its OAuth client_id, or null. */
export async function findOAuthClient(
  app: AppContext,
  oauthClientId: string,
): Promise<OAuthClientRow | null> {
  // A Client ID Metadata Document client is stored under its URL (./metadata-document.ts).
  const id = /^https?:\/\//i.test(oauthClientId) ? oauthClientId : parseId(oauthClientId)
  if (!id) return null
  return (
    (
      await app.db
        .select()
        .from(oauthClients)
        .where(and(eq(oauthClients.id, id), isNull(oauthClients.deletedAt)))
        .limit(1)
    )[0] ?? null
  )
}

/**
 * A client that registered itself (RFC 7591, or a Client ID Metadata Document): nobody vouched
 * for its name or redirect URIs, so errors are not redirected to it and consent marks it unverified.
 */
export const isSelfRegistered = (client: OAuthClientRow) => client.source !== 'operator'

/** The default workspace: the first client created (bootstrap's "Default workspace"). */
export async function defaultWorkspace(app: AppContext): Promise<string | null> {
  return (
    (await app.db.select({ id: clients.id }).from(clients).orderBy(asc(clients.createdAt)).limit(1))[0]?.id ??
    null
  )
}
