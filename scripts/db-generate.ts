// `bun run db:generate --name <what_it_does>`: drizzle-kit writes the SQLite migration for the
// schema change into migrations/sqlite/ (the arguments go to drizzle-kit, e.g. --custom for a
// hand-written one), then the PostgreSQL schema is generated again from the SQLite one and
// drizzle-kit writes its migration, under the same name, into migrations/postgres/ (with --custom,
// an empty file for the PostgreSQL counterpart), then the embedded lists are written again. A name is required: drizzle-kit would otherwise pick a random
// one, and a migration's name is how a reader of migrations/ finds what it changes (data files
// record the names, so a migration is never renamed once released).
// A script and not `drizzle-kit generate && bun run embed` because `bun run … -- args` appends the
// arguments to the end of the whole command line, where the embed step would swallow them.
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const run = (cmd: string[]) =>
  Bun.spawnSync(cmd, { cwd: root, stdio: ['inherit', 'inherit', 'inherit'] }).exitCode

/** The --name (or --name=) argument, if any. */
function nameOf(args: string[]): string | undefined {
  const at = args.findIndex((a) => a === '--name' || a.startsWith('--name='))
  if (at < 0) return undefined
  const arg = args[at] as string
  return arg === '--name' ? args[at + 1] : arg.slice('--name='.length)
}

const args = Bun.argv.slice(2)
const name = nameOf(args)
if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
  console.error(
    'Name the migration for what it changes: bun run db:generate --name <what_it_does> ' +
      '(lower case words joined by _, e.g. --name message_hit_counts); see migrations/README.md',
  )
  process.exit(1)
}
const steps = [
  ['bunx', 'drizzle-kit', 'generate', ...args],
  ['bun', 'run', join(root, 'scripts/gen-pg-schema.ts')],
  // Prints "No schema changes" and writes nothing when the change does not reach PostgreSQL.
  ['bunx', 'drizzle-kit', 'generate', '--config', 'drizzle.postgres.config.ts', ...args],
  ['bun', 'run', join(root, 'scripts/embed-migrations.ts')],
]
for (const step of steps) {
  const code = run(step)
  if (code !== 0) process.exit(code ?? 1)
}
