import { and, eq, isNull, lt, or } from 'drizzle-orm'
import type { AppContext } from '../context'
import { changedRows } from '../db/raw'
import { idempotencyKeys } from '../db/schema'
import { ServiceError } from '../errors'
import { defineVerb } from './verbs/define'
import { NoInput } from './verbs/schemas'

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** An in-flight marker older than this was left by a crash and may be taken over. */
const STALE_IN_FLIGHT_MS = 5 * 60 * 1000

export interface Fingerprint {
  method: string
  path: string
  bodyHash: string
}

type IdempotencyRow = typeof idempotencyKeys.$inferSelect

export type IdempotencyStart = { kind: 'new' } | { kind: 'replay'; status: number; body: string }

/** What a request finds under its key while it holds: its stored response, or why it cannot run. */
function answerHeld(held: IdempotencyRow, fp: Fingerprint): IdempotencyStart {
  if (held.method !== fp.method || held.path !== fp.path || held.bodyHash !== fp.bodyHash)
    throw new ServiceError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used for a different request (method, path or body); use a new key',
    )
  if (held.status === null) throw inUse()
  return { kind: 'replay', status: held.status, body: held.responseBody ?? '' }
}

const inUse = () =>
  new ServiceError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being processed; retry later',
  )

/** Reserves (credential, key) for this request, or returns the stored response to replay. */
export async function beginIdempotent(
  ctx: AppContext,
  credentialId: string,
  key: string,
  fp: Fingerprint,
): Promise<IdempotencyStart> {
  const now = ctx.clock.now()
  const where = and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key))
  const existing = (await ctx.db.select().from(idempotencyKeys).where(where).limit(1))[0]
  if (existing) {
    const expired = existing.createdAt <= now - IDEMPOTENCY_TTL_MS
    const staleInFlight = existing.status === null && existing.createdAt <= now - STALE_IN_FLIGHT_MS
    if (!expired && !staleInFlight) return answerHeld(existing, fp)
    await ctx.db.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.createdAt, existing.createdAt)))
  }
  // Requests with one key may race between that read and this insert (on either store, within
  // one process or across several): the first insert reserves the key, and the others answer
  // as if they had read its row.
  const reserved = await ctx.db
    .insert(idempotencyKeys)
    .values({ credentialId, key, method: fp.method, path: fp.path, bodyHash: fp.bodyHash, createdAt: now })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key })
  if (reserved.length > 0) return { kind: 'new' }
  const winner = (await ctx.db.select().from(idempotencyKeys).where(where).limit(1))[0]
  // Gone again already (the winner failed and let the key go): a retry may run.
  if (!winner) throw inUse()
  return answerHeld(winner, fp)
}

export async function completeIdempotent(
  ctx: AppContext,
  credentialId: string,
  key: string,
  status: number,
  body: string,
) {
  await ctx.db
    .update(idempotencyKeys)
    .set({ status, responseBody: body })
    .where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)))
}

/** A 5xx is not stored: its work rolled back, so a retry with the same key is safe. */
export async function abandonIdempotent(ctx: AppContext, credentialId: string, key: string) {
  await ctx.db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.credentialId, credentialId),
        eq(idempotencyKeys.key, key),
        isNull(idempotencyKeys.status),
      ),
    )
}

/** Scheduled purge of stored responses older than 24 h (and crashed in-flight markers). */
export async function purgeIdempotencyKeys(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now()
  const result = await ctx.db
    .delete(idempotencyKeys)
    .where(
      or(
        lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS),
        and(isNull(idempotencyKeys.status), lt(idempotencyKeys.createdAt, now - STALE_IN_FLIGHT_MS)),
      ),
    )
  return changedRows(result)
}

/** Deletes stored responses past their 24 hours (a scheduled job). */
export const purgeIdempotencyKeysVerb = defineVerb({
  name: 'idempotency.purge',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => ({ removed: await purgeIdempotencyKeys(ctx) }),
})
