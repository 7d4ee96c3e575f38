// `bun run scripts/gen-pg-schema.ts`: writes src/db/schema-pg/ from the sqlite-core tables of
// src/db/schema/ (see scripts/pg-schema-render.ts), and src/db/schema/index.ts, which picks one
// set or the other. `bun run db:generate` runs it.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PG_SCHEMA_DIR, renderPgSchema, renderSchemaIndex, SCHEMA_INDEX } from './pg-schema-render'

const files = await renderPgSchema()
mkdirSync(PG_SCHEMA_DIR, { recursive: true })
// A generated file whose SQLite module is gone goes too.
for (const f of readdirSync(PG_SCHEMA_DIR)) if (!files.has(f)) rmSync(join(PG_SCHEMA_DIR, f))
for (const [name, content] of files) writeFileSync(join(PG_SCHEMA_DIR, name), content)
writeFileSync(SCHEMA_INDEX, await renderSchemaIndex())
console.log(`wrote ${files.size} file(s) to src/db/schema-pg/ and src/db/schema/index.ts`)
