// `bun run scripts/check-schema.ts` (CI): fails when anything generated from the sqlite-core
// tables of src/db/schema/ is stale: the PostgreSQL schema in src/db/schema-pg/, either migration
// set (a schema change without its migration), or the embedded migration lists.
// The fix is always the same: `bun run db:generate --name <what_it_does>`.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { EMBEDDED_PATH, embeddedSource } from './embed-migrations'
import { PG_SCHEMA_DIR, renderPgSchema, renderSchemaIndex, SCHEMA_INDEX } from './pg-schema-render'

const root = join(import.meta.dir, '..')
const problems: string[] = []

const expected = await renderPgSchema()
const present = existsSync(PG_SCHEMA_DIR) ? readdirSync(PG_SCHEMA_DIR) : []
for (const [name, content] of expected) {
  const path = join(PG_SCHEMA_DIR, name)
  if (!existsSync(path)) problems.push(`src/db/schema-pg/${name} is missing`)
  else if (readFileSync(path, 'utf8') !== content) problems.push(`src/db/schema-pg/${name} is stale`)
}
for (const name of present)
  if (!expected.has(name)) problems.push(`src/db/schema-pg/${name} has no SQLite module`)
if (!existsSync(SCHEMA_INDEX) || readFileSync(SCHEMA_INDEX, 'utf8') !== (await renderSchemaIndex()))
  problems.push('src/db/schema/index.ts is stale')

/**
 * Runs drizzle-kit generate on a copy of the migration folder: anything but "No schema changes"
 * means a missing migration. The copy sits under the repository because drizzle-kit reads `--out`
 * relative to it, and its exit code is 0 even when it fails, so its output is what is checked.
 */
function pendingMigration(dialect: 'sqlite' | 'postgresql', schema: string, dir: string): string[] {
  const copy = join('node_modules/.cache', `herald-schema-check-${process.pid}`, dir)
  cpSync(join(root, 'migrations', dir), join(root, copy), { recursive: true })
  const args = ['generate', '--dialect', dialect, '--schema', schema, '--out', copy, '--name', 'check']
  const proc = Bun.spawnSync(['bunx', 'drizzle-kit', ...args], { cwd: root, stdin: 'ignore' })
  rmSync(join(root, copy, '..'), { recursive: true, force: true })
  const out = `${proc.stdout.toString()}${proc.stderr.toString()}`
  if (proc.exitCode === 0 && out.includes('No schema changes')) return []
  const wrote = out.match(/migrations?\S*\/\S+\.sql|\S+\.sql/)?.[0]
  return wrote
    ? [`migrations/${dir}/ lacks a migration for the schema (drizzle-kit would write ${wrote})`]
    : [`drizzle-kit generate (${dir}) did not say "No schema changes":\n${out.trim()}`]
}
problems.push(...pendingMigration('sqlite', './src/db/schema/index.ts', 'sqlite'))
if (problems.length === 0)
  problems.push(...pendingMigration('postgresql', './src/db/schema-pg/index.ts', 'postgres'))

if (readFileSync(EMBEDDED_PATH, 'utf8') !== embeddedSource())
  problems.push(
    'src/db/migrations.generated.ts does not list the migrations of migrations/sqlite and migrations/postgres',
  )

if (problems.length > 0) {
  for (const p of problems) console.error(`schema check: ${p}`)
  console.error('Run `bun run db:generate --name <what_it_does>` (see migrations/README.md).')
  process.exit(1)
}
console.log('schema check: the PostgreSQL schema and both migration sets are up to date')
