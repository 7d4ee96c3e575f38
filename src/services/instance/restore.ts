import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { DB_FILE, ensureDataDir } from '../../db/data-dir'
import { embeddedMigrations } from '../../db/migrations.generated'
import { holdServerLock, LOCK_FILE } from '../../db/server-lock'

export class RestoreRefused extends Error {}

export interface Restored {
  file: string
  /** Where the data file it replaced was moved (null when there was none). */
  replacedKeptAs: string | null
}

/** Refuses a file that is not a whole Herald database this binary can open. */
async function checkBackup(file: string): Promise<void> {
  if (!existsSync(file)) throw new RestoreRefused(`${file} does not exist`)
  let db: Database
  try {
    db = new Database(file, { readonly: true })
  } catch (err) {
    throw new RestoreRefused(`${file} cannot be opened as SQLite: ${(err as Error).message}`)
  }
  try {
    const problems = (await db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()).map(
      (r) => r.integrity_check,
    )
    if (problems.join() !== 'ok')
      throw new RestoreRefused(`${file} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`)
    const tags = await db.query<{ tag: string }, []>('SELECT tag FROM herald_migrations').all()
    if (tags.length === 0)
      throw new RestoreRefused(`${file} has no migrations applied: not a Herald database`)
    const known = new Set(embeddedMigrations.map((m) => m.tag))
    const unknown = tags.filter((t) => !known.has(t.tag)).map((t) => t.tag)
    if (unknown.length > 0)
      throw new RestoreRefused(
        `${file} was written by a newer Herald (migrations ${unknown.join(', ')}); upgrade first`,
      )
  } catch (err) {
    if (err instanceof RestoreRefused) throw err
    throw new RestoreRefused(`${file} is not a Herald database: ${(err as Error).message}`)
  } finally {
    db.close()
  }
}

/**
 * Puts a backup in place as the data file. Refused while a server holds the data directory; the
 * lock is held meanwhile so none starts halfway. The replaced file is kept beside it, its WAL
 * folded in first, so no stray `-wal` can be replayed onto the restored file.
 */
export async function restoreBackup(dataDir: string, file: string, at: number): Promise<Restored> {
  await checkBackup(file)
  ensureDataDir(dataDir)
  const lock = await holdServerLock(dataDir)
  if (!lock)
    throw new RestoreRefused(
      `a server is running on ${dataDir} (it holds ${join(dataDir, LOCK_FILE)}); stop it, then restore`,
    )
  try {
    const target = join(dataDir, DB_FILE)
    let replacedKeptAs: string | null = null
    if (existsSync(target)) {
      const current = new Database(target)
      await current.run('PRAGMA wal_checkpoint(TRUNCATE)')
      current.close()
      replacedKeptAs = `${target}.before-restore-${new Date(at).toISOString().replace(/[:.]/g, '-')}`
      renameSync(target, replacedKeptAs)
      for (const tail of ['-wal', '-shm'])
        if (existsSync(target + tail)) renameSync(target + tail, replacedKeptAs + tail)
    }
    // Copied beside, then renamed: a crash halfway never leaves a partial data file.
    copyFileSync(file, `${target}.restoring`)
    renameSync(`${target}.restoring`, target)
    return { file: target, replacedKeptAs }
  } finally {
    lock.release()
  }
}
