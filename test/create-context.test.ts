import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../src/config'
import { createAppContext } from '../src/create-context'
import { DIALECT } from '../src/db/dialect'
import { silentLogger } from '../src/lib/log'

// The store's tables are chosen when the process starts (from HERALD_DATABASE_URL's scheme), so
// a config that names the other store is refused with what to do, never half opened. The plain
// run checks one direction, the PostgreSQL pass of the suite the other.

test(`a config naming the other store than the process started on (${DIALECT}) is a ConfigError`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-store-choice-'))
  try {
    const env: Record<string, string> =
      DIALECT === 'sqlite' ? { HERALD_DATABASE_URL: 'postgres://herald@127.0.0.1:1/herald' } : {}
    const config = loadConfig({ data: dir }, env)
    const opened = createAppContext(config, { log: silentLogger })
    await expect(opened).rejects.toBeInstanceOf(ConfigError)
    await expect(opened).rejects.toThrow(
      DIALECT === 'sqlite'
        ? 'HERALD_DATABASE_URL must be set when the process starts, not after'
        : 'this process started on PostgreSQL (HERALD_DATABASE_URL); its config has no database URL',
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
