import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { preparedQuery } from '../../db/prepared-query'
import { suppressions } from '../../db/schema'

/** How an address is kept on a suppression list. */
const listed = (email: string) => email.trim().toLowerCase()

/** Addresses asked about in one statement, at most (well under either store's parameter limit). */
const AMONG_CHUNK = 500

/**
 * The check of a whole batch of sends, read in a statement per client (and 500 addresses) rather
 * than one per message: on PostgreSQL each statement is a round trip. The answer is as of the read.
 */
export function createSuppressedAmong(db: Db) {
  return async (
    recipients: readonly { clientId: string; email: string }[],
  ): Promise<(clientId: string, email: string) => boolean> => {
    const byClient = new Map<string, Set<string>>()
    for (const r of recipients) {
      const emails = byClient.get(r.clientId) ?? new Set<string>()
      emails.add(listed(r.email))
      byClient.set(r.clientId, emails)
    }
    const found = new Set<string>()
    for (const [clientId, emails] of byClient) {
      const all = [...emails]
      for (let i = 0; i < all.length; i += AMONG_CHUNK) {
        const rows = await db
          .select({ email: suppressions.email })
          .from(suppressions)
          .where(
            and(
              eq(suppressions.clientId, clientId),
              inArray(suppressions.email, all.slice(i, i + AMONG_CHUNK)),
            ),
          )
        for (const r of rows) found.add(`${clientId}\n${r.email}`)
      }
    }
    return (clientId, email) => found.has(`${clientId}\n${listed(email)}`)
  }
}

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
          .where(and(eq(suppressions.clientId, clientId), eq(suppressions.email, listed(email))))
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
    (await suppressed({ clientId, email: listed(email) })).length > 0
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
