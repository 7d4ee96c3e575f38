import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embeddedPgMigrations } from '../../src/db/migrations.generated'
import { blankDatabase } from '../helpers/postgres'

// The operator's commands with HERALD_DATABASE_URL naming PostgreSQL (spawned: the store is fixed
// when a process starts): `herald migrate` applies the PostgreSQL migrations, once; `herald
// backup` and `herald restore` say that pg_dump and pg_restore are the tools there.

const MAIN = join(import.meta.dir, '../../src/main.ts')
const dir = mkdtempSync(join(tmpdir(), 'herald-pg-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function herald(url: string, ...args: string[]) {
  const p = Bun.spawn(['bun', MAIN, ...args, '--data', dir], {
    env: { PATH: process.env.PATH ?? '', HERALD_DATABASE_URL: url },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ])
  return { code, out, err }
}

test('herald migrate applies the PostgreSQL migrations, then finds nothing to do', async () => {
  const url = await blankDatabase()
  const first = await herald(url, 'migrate')
  expect(first).toEqual({
    code: 0,
    out: `applied: ${embeddedPgMigrations.map((m) => m.tag).join(', ')}\n`,
    err: '',
  })
  expect(await herald(url, 'migrate')).toEqual({ code: 0, out: 'the database is up to date\n', err: '' })
}, 60_000)

test('herald backup and restore name pg_dump and pg_restore, exit 1, and write nothing', async () => {
  const url = await blankDatabase()
  for (const command of ['backup', 'restore']) {
    const r = await herald(url, command, join(dir, 'copy.db'))
    expect(r.code).toBe(1)
    expect(r.out).toBe('')
    expect(r.err).toContain('pg_dump')
    expect(r.err).toContain('pg_restore')
  }
  expect(await Bun.file(join(dir, 'copy.db')).exists()).toBe(false)
}, 60_000)
