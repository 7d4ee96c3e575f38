import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { silentLogger } from '../../../src/lib/log'
import { checkSecretKey } from '../../../src/services/instance/secret-key-check'
import { createTestApp } from '../../helpers/app'
import { blankDatabase } from '../../helpers/postgres'

const keyOf = (byte: number) => new Uint8Array(32).fill(byte)

describe('the secret key check', async () => {
  const t = await createTestApp()

  test('the first key is kept; the same key passes again, another is refused naming HERALD_SECRET_KEY', async () => {
    // On PostgreSQL the app's own start wrote its key's check already.
    const first = DIALECT === 'postgres' ? t.ctx.secretKey : keyOf(1)
    await checkSecretKey(t.ctx.db, first)
    await checkSecretKey(t.ctx.db, first)
    const refused = checkSecretKey(t.ctx.db, keyOf(2))
    await expect(refused).rejects.toBeInstanceOf(ConfigError)
    await expect(refused).rejects.toThrow(/set HERALD_SECRET_KEY/)
  })
})

const dir = mkdtempSync(join(tmpdir(), 'herald-key-check-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Two processes on one PostgreSQL database, each with its own data directory (so its own
// secret.key unless HERALD_SECRET_KEY is set).
test.skipIf(DIALECT !== 'postgres')(
  'a process started with another secret key than the database has is refused',
  async () => {
    const url = await blankDatabase()
    const open = (name: string, env: Record<string, string> = {}) =>
      createAppContext(loadConfig({ data: join(dir, name) }, { HERALD_DATABASE_URL: url, ...env }), {
        log: silentLogger,
      })
    const first = await open('a')
    try {
      await expect(open('b')).rejects.toThrow(/the secret key differs/)
      const same = await open('c', { HERALD_SECRET_KEY: Buffer.from(first.secretKey).toString('hex') })
      await same.store.close()
    } finally {
      await first.store.close()
    }
  },
)
