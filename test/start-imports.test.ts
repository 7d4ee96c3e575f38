import { expect, test } from 'bun:test'
import { join } from 'node:path'

// A start on SQLite loads nothing that only PostgreSQL needs: the pg-core twins of the tables,
// the PostgreSQL store and drizzle's bun-sql driver, and Bun's SQL client. They cost every start
// tens of milliseconds (docs/performance.md, cold start).

const root = join(import.meta.dir, '..')

test('on SQLite, the CLI and the server load no PostgreSQL-only module', () => {
  // A process of its own: this one has loaded other tests' modules, and may run on PostgreSQL.
  const script = `
    await import('./src/cli/index.ts')
    await import('./src/cli/serve.ts')
    const pgOnly = /src\\/db\\/schema-pg\\/|src\\/db\\/postgres\\/store|drizzle-orm\\/bun-sql\\//
    console.log(JSON.stringify(Object.keys(require.cache).filter((k) => pgOnly.test(k))))
  `
  const { HERALD_DATABASE_URL: _, ...env } = process.env
  const run = Bun.spawnSync(['bun', '-e', script], { cwd: root, env, stderr: 'pipe' })
  expect(run.stderr.toString()).toBe('')
  expect(JSON.parse(run.stdout.toString())).toEqual([])
})

test('the bundle reads Bun.SQL only where a PostgreSQL client is made, not when it starts', async () => {
  // The bundler turns `import { SQL } from 'bun'` into a read of globalThis.Bun at the bundle's
  // top, which loads Bun's SQL client (drizzle's bun-sql driver is patched for it: UPSTREAM.md).
  const built = await Bun.build({ entrypoints: [join(root, 'src/main.ts')], target: 'bun' })
  expect(built.success).toBe(true)
  const main = built.outputs.find((o) => o.kind === 'entry-point')
  const text = await main!.text()
  expect(text.match(/\{[^}]*\bSQL\b[^}]*\}\s*=\s*globalThis\.Bun\b/g) ?? []).toEqual([])
  expect(text.includes('new Bun.SQL(')).toBe(true)
})
