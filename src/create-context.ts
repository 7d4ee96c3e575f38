import type { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { type Config, ConfigError } from './config'
import type { AppContext } from './context'
import { openStore, type Store } from './db/client'
import { DB_FILE, ensureDataDir, loadSecretKey } from './db/data-dir'
import { DIALECT } from './db/dialect'
import { type BeforeMigrating, migrate } from './db/migrate'
import { createHooks } from './hooks'
import { createJobRegistry } from './jobs/registry'
import type { Logger } from './lib/log'
import { createLogger } from './lib/log'
import type { Clock } from './lib/time'
import { systemClock } from './lib/time'
import { createWakers } from './lib/wakers'
import { subscribeAutomation } from './services/automation'
import { preMigrateBackup, preMigrateBackupDir } from './services/instance/pre-migrate-backup'
import { createMetrics } from './services/metrics/registry'

// Not in src/context.ts: every module imports that one for its types, and building an app
// binds automation (which imports them too) to its hooks, which there would close a cycle.

export interface ContextOptions {
  clock?: Clock
  log?: Logger
}

/** Opens (creating and migrating) the data directory's store; automation is bound to its hooks. */
export async function createAppContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  ensureDataDir(config.dataDir)
  const secretKey = loadSecretKey(config.dataDir, config.secretKey)
  const log = options.log ?? createLogger(config.log)
  const clock = options.clock ?? systemClock
  const store = await openConfiguredStore(config, clock, log)
  const app: AppContext = {
    config,
    store,
    db: store.db,
    sqlite: store.sqlite,
    clock,
    log,
    secretKey,
    jobs: createJobRegistry(log),
    workers: createWakers(),
    hooks: createHooks(),
    metrics: createMetrics(),
    lifecycle: { draining: false },
  }
  subscribeAutomation(app)
  return app
}

/**
 * The PostgreSQL store when HERALD_DATABASE_URL names one, else the data directory's SQLite
 * file; either is migrated before it is handed out.
 */
async function openConfiguredStore(config: Config, clock: Clock, log: Logger): Promise<Store> {
  if (config.databaseUrl !== null) {
    // The tables every query is built from were chosen when the process started.
    if (DIALECT !== 'postgres')
      throw new ConfigError('HERALD_DATABASE_URL must be set when the process starts, not after')
    // Imported here, not at the top: the store brings the pg-core twins of the tables and
    // drizzle's PostgreSQL driver, which would slow every start on SQLite.
    const { openPgStore } = await import('./db/postgres/store')
    return await openPgStore(config.databaseUrl)
  }
  if (DIALECT !== 'sqlite')
    throw new ConfigError(
      'this process started on PostgreSQL (HERALD_DATABASE_URL); its config has no database URL',
    )
  const store = await openStore(join(config.dataDir, DB_FILE))
  try {
    await migrate(store.sqlite, undefined, backUpBeforeMigrating(store.sqlite, config, clock, log))
  } catch (err) {
    store.sqlite.close()
    throw err
  }
  return store
}

/** The copy of the data file taken before an upgrade's migrations change it (logged). */
export function backUpBeforeMigrating(
  sqlite: Database,
  config: Pick<Config, 'dataDir' | 'backupDir'>,
  clock: Clock,
  log: Logger,
): BeforeMigrating {
  return async (from) => {
    const file = await preMigrateBackup(
      sqlite,
      preMigrateBackupDir(config.dataDir, config.backupDir),
      from,
      clock.now(),
    )
    log.info('backup before migrating', { file, from })
  }
}
