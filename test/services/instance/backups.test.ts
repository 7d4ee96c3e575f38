import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { embeddedMigrations } from '../../../src/db/migrations.generated'
import { holdServerLock } from '../../../src/db/server-lock'
import { registerJobs } from '../../../src/jobs'
import { silentLogger } from '../../../src/lib/log'
import { startSending } from '../../../src/queue/start'
import { sendDeps } from '../../../src/sending'
import { BackupNotOnPostgresError, backupTo } from '../../../src/services/instance/backup'
import { RestoreRefused, restoreBackup } from '../../../src/services/instance/restore'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'
import { seedHostileData } from '../../helpers/portal-seed'

// Scheduled backups with retention, the restore of one into a fresh data directory (every table
// compared row by row), the restore's refusals, and the copy taken before an upgrade migrates.

const scratch = mkdtempSync(join(tmpdir(), 'herald-backups-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Every row of every table (the FTS shadow tables included), in a stable order. */
async function dump(file: string): Promise<Record<string, unknown[]>> {
  const db = new Database(file, { readonly: true })
  try {
    const tables = await db
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
    const out: Record<string, unknown[]> = {}
    for (const { name } of tables) {
      // Virtual tables are read through their shadow tables.
      const sql = (await db
        .query<{ sql: string }, [string]>('SELECT sql FROM sqlite_master WHERE name = ?')
        .get(name))!
      if (/^CREATE VIRTUAL/i.test(sql.sql)) continue
      out[name] = await db.query(`SELECT * FROM "${name}" ORDER BY 1, 2`).all()
    }
    return out
  } finally {
    db.close()
  }
}

// The backups copy the SQLite data file: on PostgreSQL they answer with pg_dump instead (below).
describe.skipIf(DIALECT === 'postgres')('scheduled backups and restore', async () => {
  if (DIALECT === 'postgres') return
  // The real time while seeding (the campaign must send), then set by the test.
  let fixed: number | null = null
  const clock = { now: () => fixed ?? Date.now() }
  const backupDir = join(scratch, 'backups')
  const herald = await createTestApp({
    clock,
    env: { HERALD_BACKUP_DIR: backupDir, HERALD_BACKUP_KEEP: '2', HERALD_BACKUP_EVERY: '0 3 * * *' },
  })
  const sender = startSending(herald.ctx, sendDeps)
  // Clients, keys, a contact in a list, a segment, a template, a sender, a sent campaign (messages
  // and events), a sequence with a run, a domain, a webhook, an agent registration.
  await seedHostileData(herald)
  await sender.stop()
  registerJobs(herald.ctx)

  test('backups.run is a named job on the configured schedule', () => {
    const job = herald.ctx.jobs.list().find((j) => j.name === 'backups.run')
    expect(job?.schedule).toBe('0 3 * * *')
  })

  test('each run writes a timestamped file; only the newest KEEP of its own files stay', async () => {
    mkdirSync(backupDir)
    writeFileSync(join(backupDir, 'notes.txt'), 'mine')
    writeFileSync(join(backupDir, 'herald-manual.db'), 'mine too')
    const made: string[] = []
    fixed = Date.parse('2026-03-01T03:00:00.000Z')
    for (let day = 0; day < 3; day++) {
      expect(await herald.ctx.jobs.tick('backups.run')).toBe(true)
      expect(herald.ctx.jobs.list().find((j) => j.name === 'backups.run')?.last_outcome).toBe('ok')
      made.push(...readdirSync(backupDir).filter((n) => !made.includes(n) && n.startsWith('herald-2026')))
      fixed += 86_400_000
    }
    expect(made).toEqual([
      'herald-2026-03-01T03-00-00-000Z.db',
      'herald-2026-03-02T03-00-00-000Z.db',
      'herald-2026-03-03T03-00-00-000Z.db',
    ])
    expect(readdirSync(backupDir).sort()).toEqual([
      'herald-2026-03-02T03-00-00-000Z.db',
      'herald-2026-03-03T03-00-00-000Z.db',
      'herald-manual.db',
      'notes.txt',
    ])
  })

  test('a backup restored into a fresh data directory holds every row of every table', async () => {
    const fresh = join(scratch, 'fresh')
    const backup = join(backupDir, 'herald-2026-03-03T03-00-00-000Z.db')
    const r = await restoreBackup(fresh, backup, Date.now())
    expect(r.replacedKeptAs).toBeNull()
    // The live file as it is now (the job runs wrote nothing after the last backup but job runs).
    const live = join(scratch, 'live.db')
    await herald.ctx.sqlite.run('VACUUM INTO ?', [live])
    const before = await dump(live)
    const after = await dump(join(fresh, 'herald.db'))
    expect(Object.keys(after)).toEqual(Object.keys(before))
    const nonEmpty = Object.entries(before)
      .filter(([, rows]) => rows.length > 0)
      .map(([t]) => t)
    for (const table of [
      'clients',
      'contacts',
      'lists',
      'segments',
      'templates',
      'campaigns',
      'messages',
      'events',
      'webhooks',
      'domains',
    ])
      expect(nonEmpty).toContain(table)
    for (const table of Object.keys(before)) {
      // The backup was taken before the last job run was recorded.
      if (table === 'job_runs') continue
      expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] })
    }
  })

  test('restoring over a data file keeps the replaced file aside', async () => {
    const dir = join(scratch, 'fresh')
    const r = await restoreBackup(
      dir,
      join(backupDir, 'herald-2026-03-02T03-00-00-000Z.db'),
      Date.parse('2026-03-04T10:00:00Z'),
    )
    expect(r.replacedKeptAs).toBe(join(dir, 'herald.db.before-restore-2026-03-04T10-00-00-000Z'))
    expect(existsSync(r.replacedKeptAs!)).toBe(true)
    expect(existsSync(join(dir, 'herald.db-wal'))).toBe(false)
  })

  test('a file that is not a Herald database is refused, the data file left alone', async () => {
    const dir = join(scratch, 'fresh')
    const garbage = join(scratch, 'garbage.db')
    writeFileSync(garbage, 'not a database at all, just some bytes'.repeat(200))
    expect(async () => await restoreBackup(dir, garbage, Date.now())).toThrow(RestoreRefused)
    const plain = join(scratch, 'plain.db')
    const db = new Database(plain)
    await db.run('CREATE TABLE t (x)')
    db.close()
    expect(async () => await restoreBackup(dir, plain, Date.now())).toThrow(/not a Herald database/)
    expect(async () => await restoreBackup(dir, join(scratch, 'missing.db'), Date.now())).toThrow(
      /does not exist/,
    )
    expect(readdirSync(dir).filter((n) => n.includes('before-restore')).length).toBe(1)
  })

  test('refused while a server holds the data directory', async () => {
    const dir = join(scratch, 'fresh')
    const lock = (await holdServerLock(dir))!
    try {
      expect(
        async () =>
          await restoreBackup(dir, join(backupDir, 'herald-2026-03-03T03-00-00-000Z.db'), Date.now()),
      ).toThrow(/a server is running/)
    } finally {
      lock.release()
    }
  })
})

test('no backups.run job unless HERALD_BACKUP_DIR is set', async () => {
  const herald = await createTestApp()
  registerJobs(herald.ctx)
  expect(herald.ctx.jobs.list().some((j) => j.name === 'backups.run')).toBe(false)
})

test.skipIf(DIALECT === 'postgres')(
  'a data file at an older migration is copied before the upgrade migrates it',
  async () => {
    const fixture = join(import.meta.dir, '../../fixtures/pre-flows')
    const dir = join(scratch, 'upgrade')
    mkdirSync(dir)
    copyFileSync(join(fixture, 'herald.db'), join(dir, 'herald.db'))
    copyFileSync(join(fixture, 'secret.key'), join(dir, 'secret.key'))
    const tagsBefore = (await dump(join(dir, 'herald.db'))).herald_migrations as { tag: string }[]
    const lines: unknown[] = []
    const log = { ...silentLogger, info: (msg: string, fields?: unknown) => lines.push({ msg, fields }) }
    const ctx = await createAppContext(loadConfig({ data: dir }, {}), {
      log,
      clock: testClock('2026-05-01T00:00:00.000Z'),
    })
    await ctx.store.close()
    const last = tagsBefore.at(-1)!.tag
    const name = `pre-migrate-${last}-2026-05-01T00-00-00-000Z.db`
    expect(readdirSync(join(dir, 'backups'))).toEqual([name])
    const copy = (await dump(join(dir, 'backups', name))).herald_migrations as { tag: string }[]
    expect(copy.map((r) => r.tag)).toEqual(tagsBefore.map((r) => r.tag))
    expect(copy.length).toBeLessThan(embeddedMigrations.length)
    expect(lines).toContainEqual({
      msg: 'backup before migrating',
      fields: { file: join(dir, 'backups', name), from: last },
    })
    // Opened again, nothing is pending: no second copy.
    await (await createAppContext(loadConfig({ data: dir }, {}), { log })).store.close()
    expect(readdirSync(join(dir, 'backups')).length).toBe(1)
  },
)

test('a new data file is not copied before its first migrations', async () => {
  const herald = await createTestApp()
  expect(existsSync(join(herald.dataDir, 'backups'))).toBe(false)
})

describe.skipIf(DIALECT !== 'postgres')('on PostgreSQL', () => {
  test('a backup is refused with what to use instead; no backups.run job even with HERALD_BACKUP_DIR', async () => {
    const herald = await createTestApp({ env: { HERALD_BACKUP_DIR: join(scratch, 'pg-backups') } })
    const err = await backupTo(herald.ctx.sqlite, join(scratch, 'pg.db')).catch((e) => e)
    expect(err).toBeInstanceOf(BackupNotOnPostgresError)
    expect((err as Error).message).toContain('pg_dump')
    expect(existsSync(join(scratch, 'pg.db'))).toBe(false)
    registerJobs(herald.ctx)
    expect(herald.ctx.jobs.list().some((j) => j.name === 'backups.run')).toBe(false)
  })
})
