import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../../src/config'
import { checkSecretKey } from '../../../src/services/instance/secret-key-check'
import { createTestApp } from '../../helpers/app'

const keyOf = (byte: number) => new Uint8Array(32).fill(byte)

describe('the secret key check', async () => {
  const t = await createTestApp()

  test('the first key is kept; the same key passes again, another is refused naming HERALD_SECRET_KEY', async () => {
    const first = keyOf(1)
    await checkSecretKey(t.ctx.db, first)
    await checkSecretKey(t.ctx.db, first)
    const refused = checkSecretKey(t.ctx.db, keyOf(2))
    await expect(refused).rejects.toBeInstanceOf(ConfigError)
    await expect(refused).rejects.toThrow(/set HERALD_SECRET_KEY/)
  })
})

// `herald serve` refusing a process started with another key: test/cli/postgres-serve-binary.test.ts.
