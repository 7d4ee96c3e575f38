import { and, eq, inArray, lt, notExists, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { rawRun } from '../../db/raw'
import {
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  oauthRevokedTokens,
  oauthUsedAssertions,
} from '../../db/schema'
import { DAY_MS } from '../../lib/time'
import { ACCESS_TOKEN_TTL_MS } from './grants'

// The oauth.purge job (src/jobs): rows no token can use any more, deleted a retention after they
// stopped counting, so the tables do not grow with every client-credentials token (each makes a
// grant) and every refresh. The week kept is for people: "what was this token?" can still be
// answered for a while after it expired.
//
// - a code: RETENTION after it expired (used or not);
// - a refresh token: RETENTION after it expired. A spent one must outlive its own expiry only
//   until then: presenting it again is how reuse is detected, and once expired it is refused as
//   expired anyway;
// - an access token's revocation (jti): RETENTION after the token expired;
// - a grant: once no code and no refresh token of it is left, and its first access token (issued
//   with it) expired RETENTION ago. Later access tokens come with a refresh token that outlives
//   them, so no access token of a grant with none left can still be valid. A token whose grant
//   is gone is refused as unknown (src/services/oauth/authenticate.ts);
// - a spent ID-JAG's jti (src/services/agents/id-jag-replay.ts): as soon as it expired, no
//   retention: the assertion itself is refused as expired from then on, and the row answers no
//   question a person would ask.

export const OAUTH_RETENTION_MS = 7 * DAY_MS

/** Rows deleted per call: each call is one transaction, so other writers wait at most one chunk. */
export const PURGE_CHUNK = 2000

export interface PurgeResult {
  codes: number
  refresh_tokens: number
  revoked_tokens: number
  grants: number
  used_assertions: number
  /** True when a chunk was full: call again. */
  more: boolean
}

/** One chunk of each table. The job calls it until `more` is false. */
export async function purgeExpiredOAuth(ctx: Ctx, chunk = PURGE_CHUNK): Promise<PurgeResult> {
  const cutoff = ctx.clock.now() - OAUTH_RETENTION_MS
  const expired = async (table: SQLiteTable, key: SQLiteColumn, expiresAt: SQLiteColumn) =>
    await deleteChunk(ctx, table, key, lt(expiresAt, cutoff), chunk)
  const codes = await expired(oauthCodes, oauthCodes.codeHash, oauthCodes.expiresAt)
  const refreshTokens = await expired(oauthRefreshTokens, oauthRefreshTokens.id, oauthRefreshTokens.expiresAt)
  const revokedTokens = await expired(
    oauthRevokedTokens,
    oauthRevokedTokens.jti,
    oauthRevokedTokens.expiresAt,
  )
  // Keyed by (issuer, jti): deleted by the row's physical id (SQLite's rowid, PostgreSQL's ctid).
  const usedAssertions = await deleteChunk(
    ctx,
    oauthUsedAssertions,
    DIALECT === 'postgres' ? sql`ctid` : sql`rowid`,
    lt(oauthUsedAssertions.expiresAt, ctx.clock.now()),
    chunk,
  )
  const dead = (
    await ctx.db
      .select({ id: oauthGrants.id })
      .from(oauthGrants)
      .where(
        and(
          lt(oauthGrants.createdAt, cutoff - ACCESS_TOKEN_TTL_MS),
          notExists(
            ctx.db.select({ one: sql`1` }).from(oauthCodes).where(eq(oauthCodes.grantId, oauthGrants.id)),
          ),
          notExists(
            ctx.db
              .select({ one: sql`1` })
              .from(oauthRefreshTokens)
              .where(eq(oauthRefreshTokens.grantId, oauthGrants.id)),
          ),
        ),
      )
      .limit(chunk)
  ).map((r) => r.id)
  if (dead.length > 0) await ctx.db.delete(oauthGrants).where(inArray(oauthGrants.id, dead))
  return {
    codes,
    refresh_tokens: refreshTokens,
    revoked_tokens: revokedTokens,
    grants: dead.length,
    used_assertions: usedAssertions,
    more: [codes, refreshTokens, revokedTokens, dead.length, usedAssertions].some((n) => n === chunk),
  }
}

/** Deletes at most `chunk` rows of `table` matching `where`; how many went. */
async function deleteChunk(
  ctx: Ctx,
  table: SQLiteTable,
  key: SQLiteColumn | SQL,
  where: SQL | undefined,
  chunk: number,
): Promise<number> {
  return await rawRun(
    ctx.db,
    sql`delete from ${table} where ${key} in (select ${key} from ${table} where ${where} limit ${chunk})`,
  )
}
