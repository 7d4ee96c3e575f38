import { expect, test } from 'bun:test'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { withActor } from '../../../src/context'
import { DIALECT } from '../../../src/db/dialect'
import { keyActor } from '../../../src/services/actors/actor'
import { createImportVerb } from '../../../src/services/imports/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'
import { rowsOf } from '../../helpers/raw-sql'
import { scratchDirs } from '../../helpers/temp-dir'

// An import's CSV is moved into the imports directory before the verb's transaction. When that
// transaction does not commit (a later write fails, the commit itself fails), the file goes too:
// no row names it, and nothing would ever remove it. A race lost to another process runs the
// transaction again on the same file, which then stays.

const t = await createTestApp()
const uploads = scratchDirs()('herald-import-rollback-')
const ctx = withActor(
  t.ctx,
  keyActor({ id: 'rollback', clientId: t.defaultClientId, scopes: ['admin:*'], tier: 'unlimited' }),
  'rollback',
)
const importsDir = join(t.dataDir, 'imports')
let n = 0

function upload() {
  const file = join(uploads, `upload-${n++}.csv`)
  const csv = 'email,first_name\nann@example.com,Ann\n'
  writeFileSync(file, csv)
  return { file, contentType: 'text/csv', bytes: csv.length, lines: 2, sha256: 'test' }
}
const csvFiles = () => (existsSync(importsDir) ? readdirSync(importsDir) : [])
const importRows = async () => (await rowsOf<{ id: string }>(t, sql`SELECT id FROM contact_imports`)).length

test('a transaction that fails after the import was queued leaves neither its row nor its file', async () => {
  const before = { files: csvFiles().length, rows: await importRows() }
  await expect(
    invoke(
      createImportVerb,
      ctx,
      {},
      {
        extras: { upload: upload() },
        atCommit: () => {
          throw new Error('the commit failed')
        },
      },
    ),
  ).rejects.toThrow('the commit failed')
  expect(await importRows()).toBe(before.rows)
  expect(csvFiles()).toHaveLength(before.files)
})

test.if(DIALECT === 'postgres')(
  'a race lost to another process keeps the file for the run that follows',
  async () => {
    let runs = 0
    const queued = (await invoke(
      createImportVerb,
      ctx,
      {},
      {
        extras: { upload: upload() },
        atCommit: () => {
          // The first run lost to another process's commit of a unique key.
          if (runs++ === 0) throw Object.assign(new Error('duplicate key'), { errno: '23505' })
        },
      },
    )) as { id: string }
    expect(runs).toBe(2)
    expect(csvFiles()).toContain(`${queued.id}.csv`)
  },
)

test('an import that commits keeps its file', async () => {
  const queued = (await invoke(createImportVerb, ctx, {}, { extras: { upload: upload() } })) as { id: string }
  expect(csvFiles()).toContain(`${queued.id}.csv`)
})
