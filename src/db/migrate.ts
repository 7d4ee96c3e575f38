import type { Database } from 'bun:sqlite'
import { embeddedMigrations } from './migrations.generated'
import { inTransaction } from './transaction'

export class MigrationError extends Error {}

export interface Migration {
  tag: string
  sql: string
}

const BREAKPOINT = '--> statement-breakpoint'

/**
 * Called before pending migrations touch a data file that already had some applied, with the
 * last tag applied: the caller keeps a copy (a migration is forward-only).
 */
export type BeforeMigrating = (from: string) => void

/**
 * Applies pending forward-only migrations in ONE transaction: if any statement fails, nothing
 * is applied and the file is left as it was. Returns the tags applied.
 */
export async function migrate(
  sqlite: Database,
  migrations: readonly Migration[] = embeddedMigrations,
  beforeMigrating?: BeforeMigrating,
): Promise<string[]> {
  await sqlite.run(
    'CREATE TABLE IF NOT EXISTS herald_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
  )
  const appliedRows = await sqlite
    .query<{ tag: string }, []>('SELECT tag FROM herald_migrations ORDER BY applied_at, rowid')
    .all()
  const applied = new Set(appliedRows.map((r) => r.tag))
  const known = new Set(migrations.map((m) => m.tag))
  const unknown = [...applied].filter((t) => !known.has(t))
  if (unknown.length > 0)
    throw new MigrationError(
      `the data file was migrated by a newer Herald (unknown migrations: ${unknown.join(', ')}); upgrade the binary`,
    )
  const pending = migrations.filter((m) => !applied.has(m.tag))
  if (pending.length === 0) return []
  const last = appliedRows.at(-1)
  if (last && beforeMigrating) beforeMigrating(last.tag)
  let current = ''
  try {
    await inTransaction(sqlite, async () => {
      for (const m of pending) {
        current = m.tag
        for (const statement of m.sql.split(BREAKPOINT)) if (statement.trim()) await sqlite.run(statement)
        await sqlite.run('INSERT INTO herald_migrations (tag, applied_at) VALUES (?, ?)', [m.tag, Date.now()])
      }
    })
  } catch (err) {
    throw new MigrationError(`migration ${current} failed, nothing was changed: ${(err as Error).message}`)
  }
  return pending.map((m) => m.tag)
}
