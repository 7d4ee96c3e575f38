import { lte, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { oauthUsedAssertions } from '../../db/schema'
import { ID_JAG_CLOCK_TOLERANCE_S, type IdJag } from './id-jag'

// An ID-JAG is spent once (draft-ietf-oauth-identity-assertion-authz-grant: the authorization
// server keeps `jti`s to refuse a replay). Both doors that accept one — the JWT-bearer grant and
// agent claim — call this inside the transaction that issues what the assertion buys, so the
// record and the token (or key) commit together: a crash between the two leaves neither, and
// never an assertion spent for nothing or a token whose assertion can be spent again.

/**
 * Records the assertion as spent; false if it was spent already (a replay). A row whose assertion
 * expired (and is not purged yet) no longer counts: the issuer may reuse the jti after that.
 * Must run inside the caller's write transaction.
 */
export async function spendIdJag(db: Db, jag: IdJag, now: number): Promise<boolean> {
  // Kept while the verifier would still accept the assertion: exp plus its clock tolerance.
  const expiresAt = jag.expiresAt + ID_JAG_CLOCK_TOLERANCE_S * 1000
  const row = (
    await db
      .insert(oauthUsedAssertions)
      .values({ issuer: jag.issuer, jti: jag.jti, expiresAt })
      .onConflictDoUpdate({
        target: [oauthUsedAssertions.issuer, oauthUsedAssertions.jti],
        set: { expiresAt: sql`excluded.expires_at` },
        setWhere: lte(oauthUsedAssertions.expiresAt, now),
      })
      .returning({ jti: oauthUsedAssertions.jti })
  )[0]!
  return row !== undefined
}
