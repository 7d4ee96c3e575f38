import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type App, createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { type AppContext, withActor } from '../../src/context'
import { createAppContext } from '../../src/create-context'
import { DIALECT } from '../../src/db/dialect'
import { inTransaction } from '../../src/db/transaction'
import type { ApiKeyTier } from '../../src/lib/enums'
import { createLogger, type Logger, silentLogger } from '../../src/lib/log'
import type { Clock } from '../../src/lib/time'
import { systemActor } from '../../src/services/actors/actor'
import { issueApiKey } from '../../src/services/api-keys/issue'
import { createClient } from '../../src/services/clients/create'
import { bootstrapIfEmpty } from '../../src/services/instance/bootstrap'
import { migratedDatabase } from './pg-database'

export interface CallOptions {
  key?: string | null
  body?: unknown
  /** Sent as-is (no JSON encoding). */
  raw?: string | Uint8Array
  headers?: Record<string, string>
}

export interface CallResult {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  body: any
  text: string
}

export interface TestApp {
  app: App
  ctx: AppContext
  dataDir: string
  /** The bootstrap platform-wide admin:* key. */
  adminKey: string
  defaultClientId: string
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>
  key(options: {
    scopes: string[]
    clientId?: string | null
    tier?: ApiKeyTier
    name?: string
  }): Promise<string>
  client(name?: string): Promise<string>
  close(): Promise<void>
}

export const BASE = 'http://localhost:8080'

/** A fresh data directory, migrated and bootstrapped, and the app called in-process. */
export async function createTestApp(
  options: {
    env?: Record<string, string>
    clock?: Clock
    log?: Logger
    /** Calls go over real HTTP to the app listening on a loopback port, as `herald serve` does. */
    overHttp?: boolean
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-'))
  // A process started on PostgreSQL (HERALD_DATABASE_URL, see docs/postgres.md) gives each app a
  // database of its own, migrated from the template.
  const store: Record<string, string> =
    DIALECT === 'postgres' ? { HERALD_DATABASE_URL: await migratedDatabase() } : { HERALD_DATABASE_URL: '' }
  const config = loadConfig({ data: dataDir }, { HERALD_PUBLIC_URL: BASE, ...store, ...options.env })
  const ctx = await createAppContext(config, {
    // A logger of its own: a spy on one app's log sees none of another app's workers.
    log: options.log ?? (process.env.TEST_LOG ? createLogger('pretty') : { ...silentLogger }),
    clock: options.clock,
  })
  const boot = (await bootstrapIfEmpty(ctx))!
  const app = createApp(ctx)
  let adminKey = boot.apiKey ?? config.bootstrapApiKey!
  // The bootstrap key is tier "scale"; tests that are not about limits should never hit one.
  adminKey = (
    await issueApiKey(ctx.db, Date.now(), {
      name: 'test admin',
      scopes: ['admin:*'],
      clientId: null,
      tier: 'unlimited',
    })
  ).key

  let origin: string | null = null
  const send = (request: Request): Promise<Response> => {
    if (!options.overHttp) return app.handle(request)
    if (!origin) {
      app.listen({ port: 0, hostname: '127.0.0.1' })
      origin = `http://127.0.0.1:${app.server!.port}`
    }
    const url = new URL(request.url)
    return fetch(origin + url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    })
  }

  const t: TestApp = {
    app,
    ctx,
    dataDir,
    adminKey,
    defaultClientId: boot.clientId,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers }
      const key = o.key === undefined ? adminKey : o.key
      if (key) headers.authorization = `Bearer ${key}`
      let body: BodyInit | undefined
      if (o.raw !== undefined) body = o.raw as BodyInit
      else if (o.body !== undefined) {
        body = JSON.stringify(o.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await send(new Request(BASE + path, { method, headers, body }))
      const text = await res.text()
      let parsed: unknown = null
      try {
        parsed = text ? JSON.parse(text) : null
      } catch {
        parsed = null
      }
      return { status: res.status, headers: res.headers, body: parsed, text }
    },
    async key({ scopes, clientId = null, tier = 'unlimited', name = 'test key' }) {
      // In a transaction, as a verb would: committed before the key is used.
      return (
        await inTransaction(ctx.sqlite, () =>
          issueApiKey(ctx.db, Date.now(), { name, scopes, clientId, tier }),
        )
      ).key
    },
    async client(name = 'Tenant') {
      return (await createClient(withActor(ctx, systemActor('test'), 'test'), { name })).id
    },
    async close() {
      if (origin) app.stop(true)
      ctx.jobs.stop()
      await ctx.store.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
  // Outside bun test (benchmarks reuse this helper) the caller closes it.
  if (process.env.NODE_ENV === 'test') afterAll(async () => await t.close())
  return t
}
