import type { Config } from './config'
import type { Store } from './db/client'
import type { Hooks } from './hooks'
import type { JobRegistry } from './jobs/registry'
import type { Logger } from './lib/log'
import type { Clock } from './lib/time'
import type { Wakers } from './lib/wakers'
import type { Actor } from './services/actors/actor'
import type { Metrics } from './services/metrics/registry'

export type { Actor } from './services/actors/actor'

/** Everything a verb may use, built once per process (src/create-context.ts). */
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
  /** Where core code lets automation react, inside its transaction (src/hooks.ts). */
  readonly hooks: Hooks
  /** Prometheus counters, bumped where work is recorded and read by GET /metrics. */
  readonly metrics: Metrics
  /** Set while shutting down: new requests get 503. */
  readonly lifecycle: { draining: boolean }
}

/** The context every verb receives: the app plus the caller. */
export interface Ctx extends AppContext {
  readonly actor: Actor
  /** Correlates logs and errors: the HTTP request id, or a name for CLI runs and jobs. */
  readonly requestId: string
}

/**
 * A verb's context: the process context with the caller added. A plain copy (a dozen
 * references): every shared part (store, workers, lifecycle) is the same object in both.
 */
export function withActor(app: AppContext, actor: Actor, requestId: string): Ctx {
  return { ...app, actor, requestId }
}
