// Runs every test file but the SQLite-only ones (on-postgres.ts) again in a `bun test` process started on PostgreSQL
// (HERALD_DATABASE_URL set when it starts: the tables are chosen then), so that `bun test`
// alone checks both stores. That process starts its own PostgreSQL server (test/helpers/postgres.ts)
// and gives each test app a database of its own.
import { expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DIALECT } from '../../../src/db/dialect'
import { allTestFiles, onPostgres, SQLITE_ONLY } from './on-postgres'

setDefaultTimeout(20 * 60_000)
const root = join(import.meta.dir, '../../..')

test('every file named SQLite-only exists, and the pass runs all the others', () => {
  for (const file of Object.keys(SQLITE_ONLY)) expect(existsSync(join(root, file))).toBe(true)
  expect(onPostgres().length + Object.keys(SQLITE_ONLY).length).toBe(allTestFiles().length)
  expect(onPostgres()).toContain('test/db/postgres/store.test.ts')
})

test.skipIf(DIALECT === 'postgres')('every test file but the SQLite-only ones passes there', async () => {
  const proc = Bun.spawn(['bun', 'test', ...onPostgres().map((f) => `./${f}`)], {
    cwd: root,
    env: {
      ...process.env,
      HERALD_DATABASE_URL: 'postgres://per-test-database',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  const report = `${out}${err}`
  const failed = report.split('\n').filter((line) => line.startsWith('(fail)'))
  // The whole report to read the failures in, then the failures by name.
  if (code !== 0) console.error(report)
  expect({ failed, code }).toEqual({ failed: [], code: 0 })
  expect(report).toMatch(/\n\s*0 fail\n/)
})
