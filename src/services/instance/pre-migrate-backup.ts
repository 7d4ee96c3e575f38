import type { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { backupTo } from './backup'

/** Where the copy before migrations goes: HERALD_BACKUP_DIR when set, else `<data>/backups`. */
export function preMigrateBackupDir(dataDir: string, backupDir: string | null): string {
  return backupDir ?? join(dataDir, 'backups')
}

/**
 * A copy of the data file as it was before an upgrade's migrations, named after the last
 * migration it had: migrations only go forward, so this file is the way back to the old binary.
 */
export async function preMigrateBackup(
  sqlite: Database,
  dir: string,
  from: string,
  at: number,
): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stamp = new Date(at).toISOString().replace(/[:.]/g, '-')
  const file = join(dir, `pre-migrate-${from}-${stamp}.db`)
  await backupTo(sqlite, file)
  return file
}
