import { join } from 'node:path'
import { Glob } from 'bun'

// Which test files run a second time on PostgreSQL (test/db/postgres/suite.test.ts): every one
// but those named here, each for a reason that is its subject, not a part not ported.

/** Test files that run on SQLite only, and why. */
export const SQLITE_ONLY: Readonly<Record<string, string>> = {
  'test/cli/checkpoint-binary.test.ts': 'WAL checkpoints of the SQLite file',
  'test/db/flows-migration.test.ts': 'an old SQLite data file migrating forward',
  'test/db/row-by-key.test.ts':
    'a statement prepared on the SQLite connection (its PostgreSQL form: test/db/postgres/store.test.ts)',
  'test/cli/postgres-serve-binary.test.ts': 'starts the binary on a PostgreSQL database of its own',
  'test/db/postgres/suite.test.ts': 'this pass itself',
  'test/multi/kill-and-restart.test.ts': 'starts two binaries on a PostgreSQL database of their own',
  'test/multi/two-processes.test.ts': 'starts two binaries on a PostgreSQL database of their own',
  'test/multi/webhook-order.test.ts': 'starts two binaries on a PostgreSQL database of their own',
  'test/multi/revocation.test.ts': 'starts two binaries on a PostgreSQL database of their own',
  'test/multi/shared-limits.test.ts': 'starts two binaries on a PostgreSQL database of their own',
}

const root = join(import.meta.dir, '../../..')

/** Every test file under test/, relative to the repository, sorted. */
export function allTestFiles(): string[] {
  return [...new Glob('test/**/*.test.ts').scanSync({ cwd: root })].sort()
}

/** The files the PostgreSQL pass runs. */
export const onPostgres = (): string[] => allTestFiles().filter((f) => !(f in SQLITE_ONLY))
