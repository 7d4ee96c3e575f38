import { and, eq, isNull } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { apiKeys } from '../../db/schema'
import { credentialOwner, findVisible, listFilter } from '../../db/tenant'
import { forbidden, invalidField, notFound } from '../../errors'
import { parseIsoDateTime } from '../../lib/time'
import { credentialsChanged } from './authenticate'
import type { CreateApiKeyInput, ListApiKeysInput } from './inputs'
import { issueApiKey } from './issue'
import { presentApiKey } from './present'

/**
 * A tenant-scoped admin key may mint keys only for its own client (never platform-wide ones,
 * never `unlimited`); a platform-wide admin key may mint any.
 */
export async function createApiKey(ctx: Ctx, input: CreateApiKeyInput) {
  const clientId = await credentialOwner(ctx.db, ctx.actor, input.client_id)
  if (ctx.actor.clientId !== null && input.tier === 'unlimited')
    throw forbidden('Only a platform-wide key can create unlimited-tier keys')
  let expiresAt: number | null = null
  if (input.expires_at != null) {
    expiresAt = parseIsoDateTime(input.expires_at)
    if (expiresAt === null) throw invalidField('expires_at', 'must be an ISO 8601 date-time')
    if (expiresAt <= ctx.clock.now()) throw invalidField('expires_at', 'must be in the future')
  }
  const { row, key } = await issueApiKey(ctx.db, ctx.clock.now(), {
    name: input.name,
    scopes: input.scopes,
    clientId,
    tier: input.tier,
    expiresAt,
  })
  return { ...presentApiKey(row), key }
}

export async function listApiKeys(ctx: Ctx, page: ListApiKeysInput) {
  const where = listFilter(ctx.actor, apiKeys.clientId, page.client_id)
  return await paginate(ctx.db, ctx.secretKey, apiKeys, apiKeys.id, where, page, presentApiKey)
}

/** The key's row, if the actor may see it: another workspace's key is a 404, as if absent. */
async function visibleKey(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, apiKeys, id)
  if (!row) throw notFound('API key')
  return row
}

export async function getApiKey(ctx: Ctx, id: string) {
  return presentApiKey(await visibleKey(ctx, id))
}

export async function revokeApiKey(ctx: Ctx, id: string) {
  const row = await visibleKey(ctx, id)
  const revoked =
    (
      await ctx.db
        .update(apiKeys)
        .set({ revokedAt: ctx.clock.now() })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning()
    )[0]! ?? row
  await credentialsChanged(ctx)
  return presentApiKey(revoked)
}
