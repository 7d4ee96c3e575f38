import type { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { DIALECT } from '../../db/dialect'

/**
 * What `herald backup`, `herald restore` and the scheduled backups answer on PostgreSQL: they
 * copy the SQLite data file, which that store does not have; its own tools back it up.
 */
export const BACKUP_ON_POSTGRES =
  'this instance stores its data in PostgreSQL (HERALD_DATABASE_URL): back it up with pg_dump ' +
  '(pg_dump --format=custom --file=herald.dump "$HERALD_DATABASE_URL") and restore with pg_restore; ' +
  "keep the data directory's secret.key with the dump"

export class BackupNotOnPostgresError extends Error {
  constructor() {
    super(BACKUP_ON_POSTGRES)
    this.name = 'BackupNotOnPostgresError'
  }
}

/** Online backup: VACUUM INTO writes a consistent, compacted copy while the instance runs. */
export async function backupTo(sqlite: Database, file: string): Promise<void> {
  if (DIALECT === 'postgres') throw new BackupNotOnPostgresError()
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`)
  await sqlite.run('VACUUM INTO ?', [file])
}
