import type { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'

/** Online backup: VACUUM INTO writes a consistent, compacted copy while the instance runs. */
export async function backupTo(sqlite: Database, file: string): Promise<void> {
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`)
  await sqlite.run('VACUUM INTO ?', [file])
}
