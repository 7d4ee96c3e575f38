import { join } from 'node:path'
import { createApp } from '../app'
import type { Flags } from '../config'
import { loadConfig } from '../config'
import { createAppContext } from '../create-context'
import { startCheckpointer } from '../db/checkpointer'
import { DB_FILE, ensureDataDir } from '../db/data-dir'
import { startWakeChannel } from '../db/postgres/wake-channel'
import { holdServerLock } from '../db/server-lock'
import { removeStaleSpools, uploadsDir } from '../http/middleware/upload'
import { registerJobs } from '../jobs'
import { flushLogs } from '../lib/log'
import { startSending } from '../queue/start'
import { sendDeps } from '../sending'
import { CREDENTIALS_SIGNAL, forgetCredentials } from '../services/api-keys/authenticate'
import { createFlowWorker } from '../services/flows/worker'
import { createImportWorker } from '../services/imports/runner'
import { bootstrapIfEmpty } from '../services/instance/bootstrap'
import { checkSecretKey } from '../services/instance/secret-key-check'
import { VERSION } from '../version'
import { startWebhookWorker } from '../webhooks/worker'

const DRAIN_TIMEOUT_MS = 10_000
/** A spool in the shared directory this old belongs to no request still running. */
const STALE_SHARED_SPOOL_MS = 60 * 60 * 1000

export async function serve(flags: Flags): Promise<void> {
  const config = loadConfig(flags)
  ensureDataDir(config.dataDir)
  // Held until the process ends: `herald restore` refuses to replace the data file under it.
  const lock = await holdServerLock(config.dataDir)
  const ctx = await createAppContext(config)
  // Servers sharing a PostgreSQL database must share the secret key (a CLI command that signs
  // and decrypts nothing may run anywhere): one with another key stops here.
  if (ctx.store.postgres)
    try {
      await checkSecretKey(ctx.db, ctx.secretKey)
    } catch (err) {
      await ctx.store.close()
      throw err
    }
  if (!lock) ctx.log.warn('another process holds the data directory lock', { data: config.dataDir })
  // Processes on one PostgreSQL database wake each other's workers and drop cached credentials
  // another changed (LISTEN/NOTIFY).
  const wakeChannel = ctx.store.postgres
    ? await startWakeChannel(ctx.store.postgres, ctx.workers, {
        [CREDENTIALS_SIGNAL]: () => forgetCredentials(ctx.db),
      })
    : null
  // WAL checkpoints on a thread of their own (src/db/checkpointer.ts); HERALD_WAL_CHECKPOINT_THREAD=0
  // keeps SQLite's automatic checkpoint on commit (what the benchmark's 'before' runs). PostgreSQL
  // has no file of ours to checkpoint: none is started there.
  const checkpointer =
    process.env.HERALD_WAL_CHECKPOINT_THREAD === '0' || ctx.store.dialect === 'postgres'
      ? null
      : await startCheckpointer(ctx.sqlite, join(config.dataDir, DB_FILE), ctx.log)
  // Spools a killed process left would keep the volume full: none belongs to a live request yet.
  // In a shared directory other processes' requests spool too: only what outlived any request goes.
  const stale = removeStaleSpools(uploadsDir(config), {
    olderThanMs: config.sharedDir ? STALE_SHARED_SPOOL_MS : 0,
  })
  if (stale > 0) ctx.log.info('removed stale upload spools', { count: stale })
  const boot = await bootstrapIfEmpty(ctx)
  registerJobs(ctx)
  // reusePort off (Elysia turns it on): a second server on a port in use must fail, not share
  // the port with this one and receive half its connections (test/cli/serve-port-in-use.test.ts).
  const app = createApp(ctx).listen({ port: config.port, hostname: config.host, reusePort: false })
  const server = app.server!
  ctx.jobs.start()
  const importWorker = createImportWorker(ctx).start() // resumes imports a stop interrupted
  const webhookWorker = startWebhookWorker(ctx, { schedule: config.webhookRetrySchedule ?? undefined })
  const sender = startSending(ctx, sendDeps) // resumes campaigns a stop interrupted
  const flowWorker = createFlowWorker(ctx).start()
  // smtp-server's code is loaded only when the listener is configured.
  const inbound =
    config.inboundSmtpPort !== null
      ? await (await import('../inbound/smtp-listener')).startInboundSmtp(ctx)
      : null

  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${server.port}`
  const lines = [
    `Herald ${VERSION} listening on ${url} (data: ${config.dataDir})`,
    `  API docs: ${url}/docs`,
    `  Admin portal: ${url}/admin`,
  ]
  if (inbound) lines.push(`  Inbound SMTP: port ${inbound.port}`)
  if (boot) {
    lines.push('', 'First run: created the "Default workspace" client and an admin.')
    if (boot.apiKey) lines.push(`  Admin API key (shown once, store it now): ${boot.apiKey}`)
    else lines.push('  Admin API key: the one given in HERALD_BOOTSTRAP_API_KEY')
    lines.push(`  Portal user: ${boot.adminEmail}`)
    if (boot.adminPassword) lines.push(`  Portal password (shown once): ${boot.adminPassword}`)
    lines.push(`  Try: curl -H "Authorization: Bearer <key>" ${url}/api/v1/clients`)
  } else {
    lines.push(
      '  Use the API key printed on first run, or make one: herald keys create --name me --scopes admin:*',
    )
  }
  process.stdout.write(lines.join('\n') + '\n')
  ctx.log.info('started', { version: VERSION, port: server.port, host: config.host })

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    ctx.log.info('shutting down', { signal })
    ctx.lifecycle.draining = true
    ctx.jobs.stop()
    // Stop accepting; let in-flight requests finish, then force-close what is left.
    const graceful = server.stop(false)
    const timedOut = await Promise.race([
      graceful.then(() => false),
      Bun.sleep(DRAIN_TIMEOUT_MS).then(() => true),
    ])
    if (timedOut) await server.stop(true)
    await inbound?.close()
    // Every worker ends its pass before the store closes and gives back what it held; what a
    // crash leaves leased is taken again when the lease runs out.
    await Promise.all([sender.stop(), webhookWorker.stop(), importWorker.stop(), flowWorker.stop()])
    await checkpointer?.stop()
    await wakeChannel?.stop()
    await ctx.store.close() // its last TRUNCATE checkpoint folds the WAL back into the data file
    lock?.release()
    ctx.log.info('stopped', { forced: timedOut })
    flushLogs()
    process.exit(0)
  }
  process.on('SIGTERM', async () => void shutdown('SIGTERM'))
  process.on('SIGINT', async () => void shutdown('SIGINT'))
}
