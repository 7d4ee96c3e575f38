// The CSV import's write side alone (issue 15, part 1): the rows of test/bench/crm-export.ts that
// the import stores, written with the import's own statements (src/db/imports.ts) and FTS5
// indexing (src/services/contacts/search-index.ts) into a fresh data file, one transaction per
// batch, with variants of the levers that could make it cheaper. Rows are generated off the clock.
// Besides the rate it prints what does not depend on a busy machine: the process's CPU seconds
// and the bytes it wrote and read (/proc/self/io), so variants compare even when the wall clock
// cannot (run them one after another, in one session).
//
// `bun run test/bench/import-writer.ts [--rows N] [--batch N] [--cache-mib N] [--no-fts]
//   [--without-email-index] [--automerge N] [--crisismerge N] [--wal-autocheckpoint N]
//   [--sort] [--key-columns client_id,email_key|client_no,email_key]`
// --sort writes each batch in lower(email) order (as the import's parse worker sends it);
// --key-columns replaces the unique index by one on stored columns (client_no is a constant here:
// it measures what a narrower key would save, not a schema the app has).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openStore } from '../../src/db/client'
import { importWriter } from '../../src/db/imports'
import { migrate } from '../../src/db/migrate'
import { inTransaction } from '../../src/db/transaction'
import { newId } from '../../src/lib/ids'
import { contactsHighWater, indexContactsAfter } from '../../src/services/contacts/search-index'
import { countUnreachableAfter } from '../../src/services/contacts/unreachable'
import { IMPORT_BATCH } from '../../src/services/imports/parse-protocol'
import { crmRow } from './crm-export'

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: String(IMPORT_BATCH) },
    'cache-mib': { type: 'string' },
    'no-fts': { type: 'boolean', default: false },
    'without-email-index': { type: 'boolean', default: false },
    // Experiments: the unique key on stored columns instead of (client_no, lower(email)).
    'key-columns': { type: 'string' },
    sort: { type: 'boolean', default: false },
    automerge: { type: 'string' },
    crisismerge: { type: 'string' },
    'wal-autocheckpoint': { type: 'string' },
    // Experiment: the FTS5 table made again with these options (e.g. "detail='none', columnsize=0").
    'fts-options': { type: 'string' },
  },
})
const rows = Number(flags.rows)
const batch = Number(flags.batch)

const io = () =>
  Object.fromEntries(
    readFileSync('/proc/self/io', 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const [k, v] = l.split(': ')
        return [k!, Number(v)]
      }),
  ) as Record<string, number>

const dir = mkdtempSync(join(tmpdir(), 'herald-import-writer-'))
try {
  const store = await openStore(join(dir, 'herald.db'))
  const sqlite = store.sqlite
  await migrate(sqlite)
  if (flags['cache-mib']) await sqlite.run(`PRAGMA cache_size = -${Number(flags['cache-mib']) * 1024}`)
  if (flags['wal-autocheckpoint'])
    await sqlite.run(`PRAGMA wal_autocheckpoint = ${Number(flags['wal-autocheckpoint'])}`)
  for (const option of ['automerge', 'crisismerge'] as const)
    if (flags[option])
      await sqlite.run(
        `INSERT INTO contacts_fts(contacts_fts, rank) VALUES ('${option}', ${Number(flags[option])})`,
      )
  if (flags['fts-options']) {
    await sqlite.run('DROP TABLE contacts_fts')
    await sqlite.run(
      `CREATE VIRTUAL TABLE contacts_fts USING fts5(email, first_name, last_name, company, phone, content='contacts', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='2 3', ${flags['fts-options']})`,
    )
  }
  if (flags['without-email-index']) await sqlite.run('DROP INDEX contacts_client_no_email_idx')
  const keyColumns = flags['key-columns']
  if (keyColumns) {
    await sqlite.run('DROP INDEX contacts_client_no_email_idx')
    await sqlite.run('ALTER TABLE contacts ADD COLUMN email_key TEXT')
    await sqlite.run(`CREATE UNIQUE INDEX contacts_key_idx ON contacts (${keyColumns})`)
  }
  const clientId = Bun.randomUUIDv7()
  await sqlite.run(
    "INSERT INTO clients (id, no, name, status, created_at, updated_at) VALUES (?, 1, 'W', 'active', 0, 0)",
    [clientId],
  )
  const w = importWriter(sqlite)
  const clientNo = (await w.clientNo(clientId))!
  const keyed = keyColumns
    ? sqlite.prepare(
        `INSERT INTO contacts (id, client_id, email, first_name, last_name, company, phone, status, timezone, custom_fields, created_at, updated_at, client_no, email_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'subscribed', NULL, ?8, ?9, ?9, 1, ?10) ON CONFLICT DO NOTHING`,
      )
    : null
  const write = async (values: string[][]) =>
    await inTransaction(sqlite, async () => {
      const at = Date.now()
      const highWater = await contactsHighWater(sqlite)
      if (flags.sort) values.sort((a, b) => (a[6]! < b[6]! ? -1 : a[6]! > b[6]! ? 1 : 0))
      if (keyed)
        for (const [email, first, last, company, phone, custom, key] of values)
          await keyed.run(
            newId(),
            clientId,
            email!,
            first!,
            last!,
            company!,
            phone ?? null,
            custom!,
            at,
            key!,
          )
      else
        await w.insertContacts(
          values.map(([email, first, last, company, phone, custom]) => ({
            id: newId(),
            clientId,
            clientNo,
            email: email!,
            firstName: first!,
            lastName: last!,
            company: company!,
            phone: phone ?? null,
            status: 'subscribed',
            timezone: null,
            customFields: custom!,
            at,
          })),
        )
      if (!flags['no-fts']) await indexContactsAfter(sqlite, highWater)
      // As the import: the new contacts counted in clients.unreachable_count (list_hygiene).
      if (!process.env.BENCH_NO_UNREACHABLE) await countUnreachableAfter(sqlite, clientId, highWater)
    })
  let ms = 0
  let cpuUs = 0
  let sysUs = 0
  const io0 = io()
  for (let from = 1; from <= rows; from += batch) {
    const values: string[][] = []
    for (let i = from; i < Math.min(rows + 1, from + batch); i++) {
      const p = crmRow(i)
      if (p.e164 !== 'invalid')
        values.push([
          p.email,
          p.first,
          p.last,
          p.company,
          p.e164 as string,
          JSON.stringify({ plan: p.plan, seats: p.seats }),
          p.email.toLowerCase(),
        ])
    }
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    await write(values)
    ms += performance.now() - t0
    const used = process.cpuUsage(cpu)
    cpuUs += used.user + used.system
    sysUs += used.system
  }
  const io1 = io()
  await store.close()
  const variant = Object.entries(flags)
    .filter(([k, v]) => v !== undefined && v !== false && k !== 'rows')
    .map(([k, v]) => (v === true ? `--${k}` : `--${k} ${v}`))
    .join(' ')
  console.log(
    JSON.stringify({
      variant: variant || 'as the import',
      rows,
      rows_per_s: Math.round(rows / (ms / 1000)),
      cpu_s: Math.round(cpuUs / 1e5) / 10,
      sys_s: Math.round(sysUs / 1e5) / 10,
      rows_per_cpu_s: Math.round(rows / (cpuUs / 1e6)),
      written_mb: Math.round((io1.wchar! - io0.wchar!) / 1e6),
      read_mb: Math.round((io1.rchar! - io0.rchar!) / 1e6),
      rss_mb: Math.round(process.memoryUsage().rss / 1e6),
    }),
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
