import { join } from 'node:path'
import type { Config } from './config'
import type { Store } from './db/client'
import { openStore } from './db/client'
import { DB_FILE, ensureDataDir, loadSecretKey } from './db/data-dir'
import { migrate } from './db/migrate'
import { createJobRegistry, type JobRegistry } from './jobs/registry'
import type { Logger } from './lib/log'
import { createLogger } from './lib/log'
import type { Clock } from './lib/time'
import { systemClock } from './lib/time'
import { createWakers, type Wakers } from './lib/wakers'
import type { Actor } from './services/actors/actor'

export type { Actor } from './services/actors/actor'

/** Everything a verb may use, built once per process. */
export interface AppContext {
  readonly config: Config
  readonly store: Store
  readonly db: Store['db']
  readonly sqlite: Store['sqlite']
  readonly clock: Clock
  readonly log: Logger
  readonly secretKey: Uint8Array
  readonly jobs: JobRegistry
  /** The background workers of this process, woken by name (a no-op when none runs). */
  readonly workers: Wakers
  /** Set while shutting down: new requests get 503. */
  readonly lifecycle: { draining: boolean }
}

/** The context every verb receives: the app plus the caller. */
export interface Ctx extends AppContext {
  readonly actor: Actor
  /** Correlates logs and errors: the HTTP request id, or a name for CLI runs and jobs. */
  readonly requestId: string
}

export interface ContextOptions {
  clock?: Clock
  log?: Logger
}

/** Opens (creating and migrating) the data directory's store. */
export function createAppContext(config: Config, options: ContextOptions = {}): AppContext {
  ensureDataDir(config.dataDir)
  const secretKey = loadSecretKey(config.dataDir, config.secretKey)
  const store = openStore(join(config.dataDir, DB_FILE))
  try {
    migrate(store.sqlite)
  } catch (err) {
    store.sqlite.close()
    throw err
  }
  const log = options.log ?? createLogger(config.log)
  return {
    config,
    store,
    db: store.db,
    sqlite: store.sqlite,
    clock: options.clock ?? systemClock,
    log,
    secretKey,
    jobs: createJobRegistry(log),
    workers: createWakers(),
    lifecycle: { draining: false },
  }
}

/**
 * A verb's context: the process context with the caller added. A plain copy (a dozen
 * references): every shared part (store, workers, lifecycle) is the same object in both.
 */
export function withActor(app: AppContext, actor: Actor, requestId: string): Ctx {
  return { ...app, actor, requestId }
}
