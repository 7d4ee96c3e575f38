// Prints the OpenAPI document exactly as GET /openapi.json serves it, from an app built on a
// throw-away data directory: `bun run scripts/openapi.ts > openapi.json` (CI lints it with
// Redocly; SDK generators can read it without a running server). HERALD_PUBLIC_URL sets
// servers[0].url (default http://localhost:8080).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config'
import { createAppContext } from '../src/create-context'
import { silentLogger } from '../src/lib/log'

const dataDir = mkdtempSync(join(tmpdir(), 'herald-openapi-'))
try {
  const publicUrl = process.env.HERALD_PUBLIC_URL ?? 'http://localhost:8080'
  const config = loadConfig({ data: dataDir }, { ...process.env, HERALD_PUBLIC_URL: publicUrl })
  const ctx = await createAppContext(config, { log: silentLogger })
  try {
    const res = await createApp(ctx).handle(new Request(`${publicUrl}/openapi.json`))
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`)
    process.stdout.write(`${JSON.stringify(await res.json(), null, 2)}\n`)
  } finally {
    ctx.jobs.stop()
    await ctx.store.close()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
