import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const DB_FILE = 'herald.db'
export const SECRET_FILE = 'secret.key'

export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
}

/**
 * The key that encrypts secrets at rest: HERALD_SECRET_KEY if given, else `secret.key` in the data
 * directory, created 0600 on first run. Losing it makes stored secrets unreadable, so it is never
 * regenerated over an existing file.
 */
export function loadSecretKey(dir: string, fromEnv: string | null): Uint8Array {
  if (fromEnv) return Buffer.from(fromEnv, 'hex')
  const file = join(dir, SECRET_FILE)
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    chmodSync(file, 0o600)
  }
  const hex = readFileSync(file, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} is not a 32-byte hex key`)
  return Buffer.from(hex, 'hex')
}
