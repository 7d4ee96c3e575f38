// `bun run db:generate [-- --name <name>]`: drizzle-kit writes the migration for the schema change
// (the arguments go to drizzle-kit, e.g. its --name), then the embedded list is written again.
// A script and not `drizzle-kit generate && bun run embed` because `bun run … -- args` appends the
// arguments to the end of the whole command line, where the embed step would swallow them.
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const run = (cmd: string[]) =>
  Bun.spawnSync(cmd, { cwd: root, stdio: ['inherit', 'inherit', 'inherit'] }).exitCode

const generated = run(['bunx', 'drizzle-kit', 'generate', ...Bun.argv.slice(2)])
if (generated !== 0) process.exit(generated ?? 1)
process.exit(run(['bun', 'run', join(root, 'scripts/embed-migrations.ts')]) ?? 1)
