import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { suppressions } from '../../db/schema'

/** The check every sending path makes before handing a message to a provider. Case-insensitive, per client. */
export function createSuppressionCheck(db: Db) {
  const query = db
    .select({ id: suppressions.id })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.clientId, sql.placeholder('clientId')),
        eq(suppressions.email, sql.placeholder('email')),
      ),
    )
    .prepare()
  return (clientId: string, email: string): boolean =>
    query.get({ clientId, email: email.trim().toLowerCase() }) !== undefined
}

/** One-off check; hot paths build the prepared check once with createSuppressionCheck. */
export function isSuppressed(db: Db, clientId: string, email: string): boolean {
  return createSuppressionCheck(db)(clientId, email)
}
