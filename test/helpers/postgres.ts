// PostgreSQL for the tests. One server per test process (bun test runs every file in one process):
// the one HERALD_TEST_POSTGRES_URL names, or a throwaway cluster started on first need and stopped
// once the process has ended. Each test file takes its own database, copied from a template built
// once, so a file never sees another's rows and the schema is migrated once per run.
import { SQL } from 'bun'
import { startCluster } from './postgres-cluster'

/** Fills the template database (e.g. runs Herald's migrations) given its URL; runs once per process. */
export type TemplateInitializer = (url: string) => Promise<void>

export interface PostgresServer {
  /** Superuser URL of the server's `postgres` database. */
  url: string
  /** Whether HERALD_TEST_POSTGRES_URL named it (a server this process did not start). */
  external: boolean
}

let server: Promise<PostgresServer> | undefined
let initializer: TemplateInitializer | undefined
let template: Promise<string> | undefined
let created = 0
// CREATE DATABASE … TEMPLATE fails while another copy of the same template is being made.
let queue: Promise<unknown> = Promise.resolve()

/** The server, started on the first call. */
export function postgresServer(): Promise<PostgresServer> {
  server ??= Promise.resolve().then(() => {
    const url = process.env.HERALD_TEST_POSTGRES_URL
    if (url) return { url, external: true }
    return { url: startCluster().url, external: false }
  })
  return server
}

/**
 * Sets what fills the template before the first database is copied from it. Setting the same
 * function again is harmless; another one once the template is built would leave the files that
 * already took a database on the old schema, so it throws.
 */
export function setTemplateInitializer(init: TemplateInitializer): void {
  if (initializer === init) return
  if (template) throw new Error('the PostgreSQL test template is already built with another initializer')
  initializer = init
}

/** The URL of a new, empty-but-for-the-template database of its own. */
export function freshDatabase(): Promise<string> {
  const next = queue.then(async () => {
    const { url } = await postgresServer()
    const from = await buildTemplate()
    const name = `herald_test_${process.pid}_${++created}`
    await admin(url, (sql) => sql.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${from}"`))
    return withDatabase(url, name)
  })
  queue = next.catch(() => {})
  return next
}

/** The URL of a new database with nothing in it (not copied from the template). */
export function blankDatabase(): Promise<string> {
  const next = queue.then(async () => {
    const { url } = await postgresServer()
    const name = `herald_blank_${process.pid}_${++created}`
    await admin(url, (sql) => sql.unsafe(`CREATE DATABASE "${name}" TEMPLATE template0`))
    return withDatabase(url, name)
  })
  queue = next.catch(() => {})
  return next
}

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

function buildTemplate(): Promise<string> {
  template ??= (async () => {
    const { url, external } = await postgresServer()
    // On a shared server, concurrent runs must not rebuild each other's template.
    const name = external ? `herald_template_${process.pid}` : 'herald_template'
    await admin(url, async (sql) => {
      const [old] = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`
      if (old) {
        await sql.unsafe(`ALTER DATABASE "${name}" WITH IS_TEMPLATE false`)
        await sql.unsafe(`DROP DATABASE "${name}" WITH (FORCE)`)
      }
      await sql.unsafe(`CREATE DATABASE "${name}"`)
    })
    if (initializer) await initializer(withDatabase(url, name))
    await admin(url, async (sql) => {
      // A connection the initializer left open would make every copy fail.
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`
      await sql.unsafe(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`)
    })
    return name
  })()
  return template
}

/** Runs `fn` on a short-lived superuser connection, so no idle socket keeps the process alive. */
async function admin<T>(url: string, fn: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL({ url, max: 1 })
  try {
    return await fn(sql)
  } finally {
    await sql.close()
  }
}
