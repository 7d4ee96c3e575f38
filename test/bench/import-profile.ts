// In-process profile of the CSV import (issue 15): the parse+check cost per row on one thread,
// and processImport end to end (parse worker + writer) on a fresh data file, so the bottleneck
// side is visible without the server. `bun run test/bench/import-profile.ts [--rows N]`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { parse } from 'csv-parse/sync'
import { openStore } from '../../src/db/client'
import { migrate } from '../../src/db/migrate'
import { createHooks } from '../../src/hooks'
import { mapHeader } from '../../src/services/imports/columns'
import { processImport } from '../../src/services/imports/process'
import { readRow, rowProblem } from '../../src/services/imports/rows'
import { writeCrmCsv } from './crm-export'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { rows: { type: 'string', default: '100000' } },
})
const rows = Number(values.rows)
const dir = mkdtempSync(join(tmpdir(), 'herald-import-profile-'))
try {
  const csv = join(dir, 'contacts.csv')
  await writeCrmCsv(csv, rows)

  let t = performance.now()
  const records = parse(await Bun.file(csv).text(), {
    bom: true,
    relax_column_count: true,
    trim: true,
  }) as string[][]
  const parseMs = performance.now() - t
  const columns = mapHeader(records[0]!)
  t = performance.now()
  let bad = 0
  for (let i = 1; i < records.length; i++) if (rowProblem(readRow(records[i]!, columns))) bad++
  const checkMs = performance.now() - t
  console.log(
    `one thread: csv-parse ${((parseMs / rows) * 1000).toFixed(2)} µs/row, row checks ${((checkMs / rows) * 1000).toFixed(2)} µs/row (${bad} refused)`,
  )

  const store = await openStore(join(dir, 'herald.db'))
  await migrate(store.sqlite)
  const clientId = Bun.randomUUIDv7()
  await store.sqlite.run(
    "INSERT INTO clients (id, no, name, status, created_at, updated_at) VALUES (?, 1, 'P', 'active', 0, 0)",
    [clientId],
  )
  t = performance.now()
  const p = await processImport(
    { db: store.db, hooks: createHooks() },
    { id: 'x', clientId, file: csv, listId: null, updateExisting: false },
    () => Date.now(),
    () => {},
  )
  const ms = performance.now() - t
  console.log(
    `processImport: ${Math.round(rows / (ms / 1000))} rows/s (${(ms / 1000).toFixed(2)} s), ${p.inserted} inserted, ${p.skipped} skipped`,
  )
  await store.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
