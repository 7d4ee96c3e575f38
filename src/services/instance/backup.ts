import type { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'

/** Online backup: VACUUM INTO writes a consistent, compacted copy while the instance runs. */
export function backupTo(sqlite: Database, file: string): void {
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`)
  sqlite.run('VACUUM INTO ?', [file])
}
