import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { preparedQuery } from '../../db/prepared-query'
import { suppressions } from '../../db/schema'

/** The check every sending path makes before handing a message to a provider. Case-insensitive, per client. */
export function createSuppressionCheck(db: Db) {
  // On PostgreSQL a query built while a transaction runs belongs to that transaction (the store's
  // db answers from it) and fails once it has ended: the check is built at each call there.
  if (DIALECT === 'postgres')
    return async (clientId: string, email: string): Promise<boolean> =>
      (
        await db
          .select({ id: suppressions.id })
          .from(suppressions)
          .where(and(eq(suppressions.clientId, clientId), eq(suppressions.email, email.trim().toLowerCase())))
          .limit(1)
      ).length > 0
  const query = db
    .select({ id: suppressions.id })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.clientId, sql.placeholder('clientId')),
        eq(suppressions.email, sql.placeholder('email')),
      ),
    )
  const suppressed = preparedQuery(query, 'suppression_check')
  return async (clientId: string, email: string): Promise<boolean> =>
    (await suppressed({ clientId, email: email.trim().toLowerCase() })).length > 0
}

const checks = new WeakMap<Db, ReturnType<typeof createSuppressionCheck>>()

/** One check, through a statement prepared once per connection (public forms call it per post). */
export async function isSuppressed(db: Db, clientId: string, email: string): Promise<boolean> {
  let check = checks.get(db)
  if (!check) {
    check = createSuppressionCheck(db)
    checks.set(db, check)
  }
  return await check(clientId, email)
}
