import { defineConfig } from 'drizzle-kit'

// The PostgreSQL schema is generated from the SQLite one (scripts/gen-pg-schema.ts); its
// migrations are written by `bun run db:generate` after the SQLite ones.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema-pg/index.ts',
  out: './migrations/postgres',
})
