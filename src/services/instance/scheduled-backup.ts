import type { Database } from 'bun:sqlite'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { backupTo } from './backup'

/** The names the backup job gives its files; retention only ever deletes files named so. */
const OWN_FILE = /^herald-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/

/** `herald-2025-01-31T03-00-00-000Z.db`: sorts by name in the order the backups were taken. */
export function scheduledBackupName(at: number): string {
  return `herald-${new Date(at).toISOString().replace(/[:.]/g, '-')}.db`
}

export interface ScheduledBackup {
  file: string
  /** Older backups of the job deleted to keep `keep`. */
  removed: string[]
}

/**
 * One run of the scheduled backup: an online copy (VACUUM INTO) into `dir`, then the oldest of the
 * job's own files beyond `keep` deleted. Other files in the directory are never touched.
 */
export async function runScheduledBackup(
  sqlite: Database,
  dir: string,
  keep: number,
  at: number,
): Promise<ScheduledBackup> {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, scheduledBackupName(at))
  await backupTo(sqlite, file)
  const own = readdirSync(dir)
    .filter((name) => OWN_FILE.test(name))
    .sort()
  const removed = own.slice(0, Math.max(0, own.length - keep)).map((name) => join(dir, name))
  for (const old of removed) rmSync(old, { force: true })
  return { file, removed }
}
