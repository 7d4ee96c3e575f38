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
export function createApiKey(ctx: Ctx, input: CreateApiKeyInput) {
  const clientId = credentialOwner(ctx.db, ctx.actor, input.client_id)
  if (ctx.actor.clientId !== null && input.tier === 'unlimited')
    throw forbidden('Only a platform-wide key can create unlimited-tier keys')
  let expiresAt: number | null = null
  if (input.expires_at != null) {
    expiresAt = parseIsoDateTime(input.expires_at)
    if (expiresAt === null) throw invalidField('expires_at', 'must be an ISO 8601 date-time')
    if (expiresAt <= ctx.clock.now()) throw invalidField('expires_at', 'must be in the future')
  }
  const { row, key } = issueApiKey(ctx.db, ctx.clock.now(), {
    name: input.name,
    scopes: input.scopes,
    clientId,
    tier: input.tier,
    expiresAt,
  })
  return { ...presentApiKey(row), key }
}

export function listApiKeys(ctx: Ctx, page: ListApiKeysInput) {
  const where = listFilter(ctx.actor, apiKeys.clientId, page.client_id)
  return paginate(ctx.db, ctx.secretKey, apiKeys, apiKeys.id, where, page, presentApiKey)
}

/** The key's row, if the actor may see it: another workspace's key is a 404, as if absent. */
function visibleKey(ctx: Ctx, id: string) {
  const row = findVisible(ctx.db, ctx.actor, apiKeys, id)
  if (!row) throw notFound('API key')
  return row
}

export function getApiKey(ctx: Ctx, id: string) {
  return presentApiKey(visibleKey(ctx, id))
}

export function revokeApiKey(ctx: Ctx, id: string) {
  const row = visibleKey(ctx, id)
  const revoked =
    ctx.db
      .update(apiKeys)
      .set({ revokedAt: ctx.clock.now() })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning()
      .get() ?? row
  credentialsChanged(ctx.db)
  return presentApiKey(revoked)
}
