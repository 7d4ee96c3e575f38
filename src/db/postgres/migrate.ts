import { type Migration, MigrationError } from '../migrate'
import { embeddedPgMigrations } from '../migrations.generated'
import { MIGRATION_LOCK } from './lock-keys'

/**
 * What applying migrations needs of a PostgreSQL client: Bun's SQL and postgres.js both fit
 * (`begin` runs the callback in one transaction; `unsafe` runs SQL text as it is).
 */
export interface PgMigrationClient {
  begin<T>(fn: (tx: PgMigrationTx) => Promise<T>): Promise<T>
}

export interface PgMigrationTx {
  unsafe(query: string, params?: unknown[]): Promise<unknown>
}

const BREAKPOINT = '--> statement-breakpoint'

/** A statement that is only comments (a placeholder migration) is not sent. */
const isEmpty = (statement: string) =>
  statement
    .split('\n')
    .map((l) => l.trim())
    .every((l) => l === '' || l.startsWith('--'))

/**
 * Applies pending forward-only migrations in ONE transaction (PostgreSQL's DDL is transactional:
 * a failure leaves the database as it was), under an advisory lock so that two processes starting
 * together do not both migrate. Returns the tags applied.
 */
export async function applyPgMigrations(
  client: PgMigrationClient,
  migrations: readonly Migration[] = embeddedPgMigrations,
): Promise<string[]> {
  let current = ''
  try {
    return await client.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
      await tx.unsafe(
        'CREATE TABLE IF NOT EXISTS herald_migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)',
      )
      const rows = (await tx.unsafe('SELECT tag FROM herald_migrations')) as { tag: string }[]
      const applied = new Set(rows.map((r) => r.tag))
      const known = new Set(migrations.map((m) => m.tag))
      const unknown = [...applied].filter((t) => !known.has(t))
      if (unknown.length > 0)
        throw new MigrationError(
          `the database was migrated by a newer Herald (unknown migrations: ${unknown.join(', ')}); upgrade the binary`,
        )
      const pending = migrations.filter((m) => !applied.has(m.tag))
      for (const m of pending) {
        current = m.tag
        for (const statement of m.sql.split(BREAKPOINT)) if (!isEmpty(statement)) await tx.unsafe(statement)
        await tx.unsafe('INSERT INTO herald_migrations (tag, applied_at) VALUES ($1, $2)', [
          m.tag,
          Date.now(),
        ])
      }
      return pending.map((m) => m.tag)
    })
  } catch (err) {
    if (err instanceof MigrationError) throw err
    // Before the first migration (the database unreachable, the lock or the tag table refused)
    // there is no migration to name: the operator would read "migration  failed".
    if (current === '')
      throw new MigrationError(
        `the PostgreSQL database could not be migrated (no migration had started, nothing was changed): ${(err as Error).message}`,
      )
    throw new MigrationError(`migration ${current} failed, nothing was changed: ${(err as Error).message}`)
  }
}
