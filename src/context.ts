import { join } from 'node:path'
import type { Config } from './config'
import type { Store } from './db/client'
import { openStore } from './db/client'
import { DB_FILE, ensureDataDir, loadSecretKey } from './db/data-dir'
import { migrate } from './db/migrate'
import type { ApiKeyTier } from './db/schema'
import { createJobRegistry, type JobRegistry } from './jobs/registry'
import type { Logger } from './lib/log'
import { createLogger } from './lib/log'
import type { Clock } from './lib/time'
import { systemClock } from './lib/time'

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
  /** Set while shutting down: new requests get 503. */
  readonly lifecycle: { draining: boolean }
}

/** Who is calling. clientId null = platform-wide credential. */
export interface Actor {
  readonly keyId: string
  readonly clientId: string | null
  readonly scopes: readonly string[]
  readonly tier: ApiKeyTier
}

/** The context every verb receives: the app plus the caller. */
export interface Ctx extends AppContext {
  readonly actor: Actor
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
  const ctx: AppContext = {
    config,
    store,
    db: store.db,
    sqlite: store.sqlite,
    clock: options.clock ?? systemClock,
    log,
    secretKey,
    jobs: createJobRegistry(log),
    lifecycle: { draining: false },
  }
  return ctx
}

/** The process-wide context behind a request context (withActor makes prototype children). */
export function appOf(ctx: AppContext): AppContext {
  let c = ctx
  while (!Object.hasOwn(c, 'store')) c = Object.getPrototypeOf(c)
  return c
}

export function withActor(app: AppContext, actor: Actor, requestId: string): Ctx {
  return Object.assign(Object.create(app) as AppContext, { actor, requestId }) as Ctx
}
