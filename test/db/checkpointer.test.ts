import { afterEach, expect, test } from 'bun:test'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Checkpointer, startCheckpointer } from '../../src/db/checkpointer'
import { openStore, type Store } from '../../src/db/client'
import type { Logger } from '../../src/lib/log'
import { until } from '../helpers/receiver'
import { scratchDirs } from '../helpers/temp-dir'

const tempDir = scratchDirs()

// The WAL checkpoint thread of `herald serve` (src/db/checkpointer.ts): the main connection runs
// with wal_autocheckpoint = 0 and the thread folds the WAL into the data file; a thread that
// cannot start or dies gives the main connection SQLite's automatic checkpoint back.

const open: { store: Store; cp?: Checkpointer }[] = []
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.cp?.stop()
    await o.store.close()
  }
})

async function fresh() {
  const dir = tempDir('herald-ckpt-')
  const file = join(dir, 'herald.db')
  const store = await openStore(file)
  await store.sqlite.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  const entry: { store: Store; cp?: Checkpointer } = { store }
  open.push(entry)
  return { file, store, entry }
}

const autocheckpoint = async (store: Store) =>
  ((await store.sqlite.query('PRAGMA wal_autocheckpoint').get()) as { wal_autocheckpoint: number })
    .wal_autocheckpoint

/** 1,500 commits of ~4 KB each: well past the 1,000 pages that trigger SQLite's own checkpoint. */
async function writeMany(store: Store, marker: string) {
  const insert = store.sqlite.prepare('INSERT INTO t (body) VALUES (?)')
  for (let i = 0; i < 1500; i++) await insert.run(`${marker}${i}:${'x'.repeat(4000)}`)
}

function recorder() {
  const warnings: string[] = []
  const log: Logger = { info() {}, error() {}, warn: (msg) => void warnings.push(msg) }
  return { log, warnings }
}

test('the thread checkpoints the WAL into the data file while the main connection never does', async () => {
  const { file, store, entry } = await fresh()
  const { log, warnings } = recorder()
  const reports: { mode: string; log: number; moved: number }[] = []
  entry.cp = await startCheckpointer(store.sqlite, file, log, {
    intervalMs: 20,
    onCheckpoint: (m) => reports.push(m),
  })
  expect(await entry.cp.started).toBe(true)
  expect(entry.cp.active()).toBe(true)
  expect(await autocheckpoint(store)).toBe(0)

  await writeMany(store, 'thread-marker-')
  // The rows reach the data file itself (only a checkpoint writes there under WAL).
  await until(() => readFileSync(file).includes('thread-marker-1499:'), 10_000, 'rows in the data file')
  await until(() => reports.some((r) => r.moved === r.log && r.log >= 1500), 10_000, 'every frame moved')
  expect(reports.every((r) => r.mode === 'PASSIVE')).toBe(true)
  expect(await autocheckpoint(store)).toBe(0)
  expect(warnings).toEqual([])
})

test('control: with autocheckpoint 0 and no thread, the same writes stay in the WAL', async () => {
  const { file, store } = await fresh()
  await store.sqlite.run('PRAGMA wal_autocheckpoint = 0')
  await writeMany(store, 'control-marker-')
  expect(readFileSync(file).includes('control-marker-0:')).toBe(false)
  expect(statSync(`${file}-wal`).size).toBeGreaterThan(1500 * 4096)
})

test('a WAL larger than the limit is reset with TRUNCATE (the -wal file stays under the limit, not 6 MB)', async () => {
  const { file, store, entry } = await fresh()
  const { log } = recorder()
  const reports: { mode: string }[] = []
  entry.cp = await startCheckpointer(store.sqlite, file, log, {
    intervalMs: 20,
    truncateBytes: 1024 * 1024,
    onCheckpoint: (m) => reports.push(m),
  })
  expect(await entry.cp.started).toBe(true)
  await writeMany(store, 'truncate-marker-')
  // No size check here: the thread runs beside the writes and may already have reset the WAL.
  // It only TRUNCATEs above truncateBytes, so its TRUNCATE report says the WAL crossed the limit.
  await until(() => reports.some((r) => r.mode === 'TRUNCATE'), 10_000, 'a TRUNCATE checkpoint')
  // Without TRUNCATE the 1,500 writes leave a WAL over 6 MB (the control above). The thread may
  // truncate mid-way and the rest grow it again, so the end state is "under the limit", not 0.
  await until(() => statSync(`${file}-wal`).size <= 1024 * 1024, 10_000, 'a -wal file under the limit')
  await until(
    () => readFileSync(file).includes('truncate-marker-1499:'),
    10_000,
    'the last row in the data file',
  )
}, 30_000)

test('a thread that cannot start leaves SQLite automatic checkpoint on, with a warning; no write is lost', async () => {
  const { file, store, entry } = await fresh()
  const { log, warnings } = recorder()
  const broken = join(tempDir('herald-ckpt-bad-'), 'broken-thread.ts')
  writeFileSync(broken, "throw new Error('this checkpoint thread fails to load')\n")
  entry.cp = await startCheckpointer(store.sqlite, file, log, { intervalMs: 20, url: broken })
  expect(await entry.cp.started).toBe(false)
  expect(entry.cp.active()).toBe(false)
  expect(await autocheckpoint(store)).toBe(1000)
  expect(warnings).toEqual(['WAL checkpoint thread unavailable; SQLite checkpoints automatically on commit'])
  // SQLite's own checkpoint folds the WAL in on the commit that crosses 1,000 pages.
  await writeMany(store, 'fallback-marker-')
  expect(readFileSync(file).includes('fallback-marker-0:')).toBe(true)
  expect(((await store.sqlite.query('SELECT count(*) AS n FROM t').get()) as { n: number }).n).toBe(1500)
})

test('a thread that dies after starting gives the main connection its automatic checkpoint back', async () => {
  const { file, store, entry } = await fresh()
  const { log, warnings } = recorder()
  const dying = join(tempDir('herald-ckpt-die-'), 'dying-thread.ts')
  writeFileSync(
    dying,
    "self.onmessage = (e) => { if (e.data.kind === 'setup') { postMessage({ kind: 'ready' }); setTimeout(() => process.exit(1), 50) } }\n",
  )
  entry.cp = await startCheckpointer(store.sqlite, file, log, { url: dying })
  expect(await entry.cp.started).toBe(true)
  expect(await autocheckpoint(store)).toBe(0)
  await until(() => warnings.length > 0, 5000, 'the fallback warning')
  expect(entry.cp.active()).toBe(false)
  expect(await autocheckpoint(store)).toBe(1000)
})

test('stop ends the thread and restores the automatic checkpoint; the store closes with an empty WAL', async () => {
  const { file, store, entry } = await fresh()
  const { log, warnings } = recorder()
  const cp = await startCheckpointer(store.sqlite, file, log, { intervalMs: 20 })
  expect(await cp.started).toBe(true)
  await store.sqlite.run("INSERT INTO t (body) VALUES ('last-write-before-stop')")
  await cp.stop()
  expect(cp.active()).toBe(false)
  expect(await autocheckpoint(store)).toBe(1000)
  open.splice(open.indexOf(entry), 1)
  await store.close()
  expect(statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0)
  expect(readFileSync(file).includes('last-write-before-stop')).toBe(true)
  expect(warnings).toEqual([])
})
