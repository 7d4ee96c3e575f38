import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config'
import { backUpBeforeMigrating } from '../create-context'
import { openStore } from '../db/client'
import { DB_FILE, ensureDataDir } from '../db/data-dir'
import { MigrationError, migrate } from '../db/migrate'
import { applyPgMigrations } from '../db/postgres/migrate'
import { registerJobs } from '../jobs'
import { createLogger, flushLogs } from '../lib/log'
import { systemClock } from '../lib/time'
import { BackupNotOnPostgresError, backupTo } from '../services/instance/backup'
import { restoreBackup } from '../services/instance/restore'
import { VERSION } from '../version'
import { analyticsCommand } from './analytics'
import { doctorCommand } from './doctor'
import { type KeyFlags, keysCommand } from './keys'
import { withOfflineContext, withOfflineContextAsync } from './offline'
import { parseArgsProblem, USAGE, UsageError } from './usage'
import { type UserFlags, usersCommand } from './users'

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  client: { type: 'string' },
  tier: { type: 'string' },
  expires: { type: 'string' },
  json: { type: 'boolean' },
  email: { type: 'string' },
  role: { type: 'string' },
  password: { type: 'string' },
  clients: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

/** Which flags each command accepts: anything else is a usage error (exit 2). */
const ALLOWED: Record<string, readonly string[]> = {
  serve: ['port', 'host', 'data'],
  migrate: ['data'],
  keys: ['data', 'name', 'scopes', 'client', 'tier', 'expires', 'json'],
  users: ['data', 'email', 'role', 'password', 'clients', 'json'],
  jobs: ['data'],
  analytics: ['data', 'client', 'json'],
  backup: ['data'],
  healthcheck: ['port', 'host'],
  restore: ['data'],
  doctor: ['data'],
  version: [],
  help: [],
}

/** Runs the CLI; returns the process exit code (serve keeps running and never returns). */
export async function runCli(argv: string[]): Promise<number> {
  // `herald api` parses its own flags (one set per operation) and is loaded only when used.
  if (argv[0] === 'api') return (await import('./api')).apiCommand(argv.slice(1))
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    })
    const [command = 'help', ...rest] = positionals
    // `--version`/`-v` anywhere is `herald version`, as `--help` anywhere is `herald help`.
    if (values.version && !values.help) {
      console.log(VERSION)
      return 0
    }
    if (values.help || command === 'help') {
      process.stdout.write(USAGE)
      return 0
    }
    const allowed = ALLOWED[command]
    if (!allowed) throw new UsageError(`unknown command: ${command}`)
    const extra = Object.keys(values).filter((k) => !allowed.includes(k))
    if (extra.length) throw new UsageError(`${command} does not take --${extra.join(', --')}`)
    const flags = values as KeyFlags

    switch (command) {
      case 'version':
        console.log(VERSION)
        return 0
      case 'serve': {
        if (rest.length) throw new UsageError('serve takes no arguments')
        // Loaded here, not at the top: the server (Elysia, the portal, MCP) costs the other
        // commands ~300 ms of start-up they never use.
        const { serve } = await import('./serve')
        await serve(flags)
        return -1
      }
      case 'healthcheck':
        if (rest.length) throw new UsageError('healthcheck takes no arguments')
        return (await import('./healthcheck')).healthcheck(flags)
      case 'migrate': {
        const config = loadConfig(flags)
        ensureDataDir(config.dataDir)
        if (config.databaseUrl !== null) {
          const applied = await migratePostgres(config.databaseUrl)
          console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date')
          return 0
        }
        const store = await openStore(join(config.dataDir, DB_FILE))
        let applied: string[]
        const log = createLogger(config.log)
        try {
          applied = await migrate(
            store.sqlite,
            undefined,
            backUpBeforeMigrating(store.sqlite, config, systemClock, log),
          )
        } finally {
          await store.close()
          flushLogs()
        }
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the data file is up to date')
        return 0
      }
      case 'analytics':
        await analyticsCommand(rest[0], rest.slice(1), flags)
        return 0
      case 'keys':
        await keysCommand(rest[0], rest.slice(1), flags)
        return 0
      case 'users':
        await usersCommand(rest[0], rest.slice(1), flags as UserFlags)
        return 0
      case 'jobs': {
        const [sub, name] = rest
        if (sub === 'list' && rest.length === 1) {
          await withOfflineContext(flags, (ctx) => {
            registerJobs(ctx)
            for (const j of ctx.jobs.list()) console.log(`${j.name}\t${j.schedule}\t${j.description}`)
          })
          return 0
        }
        if (sub !== 'run' || !name || rest.length !== 2)
          throw new UsageError('usage: herald jobs list | herald jobs run NAME')
        // Runs the job now against the data file (an operator's "run it now"), then reports.
        const error = await withOfflineContextAsync(flags, async (ctx) => {
          registerJobs(ctx)
          if (!ctx.jobs.list().some((j) => j.name === name))
            throw new UsageError(`unknown job: ${name} (see herald jobs list)`)
          await ctx.jobs.runNow(name)
          return ctx.jobs.list().find((j) => j.name === name)?.last_error ?? null
        })
        if (error) throw new Error(`job ${name} failed: ${error}`)
        console.log(`job ${name} ran`)
        return 0
      }
      case 'doctor':
        if (rest.length) throw new UsageError('doctor takes no arguments')
        return await doctorCommand(flags)
      case 'restore': {
        const file = rest[0]
        if (!file || rest.length > 1) throw new UsageError('usage: herald restore FILE')
        const config = loadConfig(flags)
        // It replaces the SQLite data file, which a PostgreSQL instance does not read.
        if (config.databaseUrl !== null) throw new BackupNotOnPostgresError()
        const r = await restoreBackup(config.dataDir, file, Date.now())
        console.log(`restored ${file} as ${r.file}`)
        if (r.replacedKeptAs) console.log(`the replaced data file is kept as ${r.replacedKeptAs}`)
        console.log(
          'pending migrations run when the server starts; it needs the secret.key this backup was made with',
        )
        return 0
      }
      case 'backup': {
        const file = rest[0]
        if (!file || rest.length > 1) throw new UsageError('usage: herald backup FILE')
        if (loadConfig(flags).databaseUrl !== null) throw new BackupNotOnPostgresError()
        await withOfflineContext(flags, async (ctx) => await backupTo(ctx.sqlite, file))
        console.log(`backup written to ${file}`)
        return 0
      }
    }
    return 0
  } catch (err) {
    const optionError = parseArgsProblem(err)
    if (optionError) {
      process.stderr.write(`herald: ${optionError}\n`)
      return 2
    }
    if (err instanceof UsageError) {
      process.stderr.write(`herald: ${(err as Error).message}\n\n${USAGE}`)
      return 2
    }
    if (
      err instanceof ConfigError ||
      err instanceof MigrationError ||
      err instanceof BackupNotOnPostgresError
    ) {
      process.stderr.write(`herald: ${err.message}\n`)
      return 1
    }
    process.stderr.write(`herald: ${(err as Error).message ?? err}\n`)
    return 1
  }
}

/** `herald migrate` on PostgreSQL: the PostgreSQL migrations, on a connection of its own. */
async function migratePostgres(url: string): Promise<string[]> {
  // Bun.SQL, not an import of SQL from 'bun' (see db/postgres/store.ts).
  const client = new Bun.SQL({ url, max: 1 })
  try {
    return await applyPgMigrations(client)
  } finally {
    await client.close()
  }
}
