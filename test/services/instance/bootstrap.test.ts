import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { count } from 'drizzle-orm'
import { loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { apiKeys, clients, users } from '../../../src/db/schema'
import { silentLogger } from '../../../src/lib/log'
import { bootstrapIfEmpty } from '../../../src/services/instance/bootstrap'
import { blankDatabase } from '../../helpers/postgres'

// Two processes starting at once on one empty PostgreSQL database (two contexts, each with its own
// pool, as two processes have): one migrates and bootstraps, the other finds it done. Runs in the
// PostgreSQL pass of the suite: two contexts on one SQLite file in one process would block each
// other's thread (SQLite waits for a lock synchronously), and a SQLite data directory has one
// server (`herald serve` holds its lock).

const dir = mkdtempSync(join(tmpdir(), 'herald-bootstrap-race-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test.skipIf(DIALECT !== 'postgres')(
  'processes bootstrapping one empty database together make one workspace, one owner, one key',
  async () => {
    const env: Record<string, string> =
      DIALECT === 'postgres' ? { HERALD_DATABASE_URL: await blankDatabase() } : {}
    const config = loadConfig({ data: dir }, { ...env, HERALD_ADMIN_PASSWORD: 'correct horse battery' })
    const open = () => createAppContext(config, { log: silentLogger })
    // On PostgreSQL they migrate together too (under the migrations' advisory lock); a SQLite data
    // file is migrated by the first process to open it.
    const [a, b] = DIALECT === 'postgres' ? await Promise.all([open(), open()]) : [await open(), await open()]
    try {
      const results = await Promise.all([bootstrapIfEmpty(a), bootstrapIfEmpty(b), bootstrapIfEmpty(a)])
      expect(results.filter((r) => r !== null)).toHaveLength(1)
      const n = async (table: typeof clients | typeof users | typeof apiKeys) =>
        (await a.db.select({ n: count() }).from(table))[0]!.n
      expect([await n(clients), await n(users), await n(apiKeys)]).toEqual([1, 1, 1])
      expect(await bootstrapIfEmpty(b)).toBeNull()
    } finally {
      await a.store.close()
      await b.store.close()
    }
  },
)
