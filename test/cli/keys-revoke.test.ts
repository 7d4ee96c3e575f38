import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { toPrefixedId } from '../../src/lib/ids'
import { createTestApp } from '../helpers/app'
import { cliOnApp } from '../helpers/cli'
import { rowOf } from '../helpers/raw-sql'

// `herald keys revoke ID` run in-process (runCli, stdout and stderr captured) on a test app's
// data file. A command line that is wrong in itself (no id, two ids, an argument that is not an
// id) is a usage error: exit 2, one line naming what is wrong, then the usage. An id that is well
// formed but names no key is the verb's refusal: exit 1. Nothing is revoked by a refused command.

const t = await createTestApp()

const cli = async (args: string[]) => await cliOnApp(t, args)

const revokedCount = async () =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM api_keys WHERE revoked_at IS NOT NULL`,
  ))!.n

const made = await cli(['keys', 'create', '--name', 'doomed', '--scopes', 'contacts:read', '--json'])
const { id } = JSON.parse(made.stdout) as { id: string }

test.each([
  [['nope'], 2, 'herald: "nope" is not a key id (key_… or a UUID)\n'],
  [['key_123'], 2, 'herald: "key_123" is not a key id (key_… or a UUID)\n'],
  [[], 2, 'herald: keys revoke needs the key id\n'],
  [['nope', 'also'], 2, 'herald: keys revoke takes one key id\n'],
  [['ID', 'extra'], 2, 'herald: keys revoke takes one key id\n'],
  [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'], 1, 'herald: API key not found\n'],
] as const)('keys revoke %j → exit %d', async (args, code, first) => {
  const before = await revokedCount()
  const r = await cli(['keys', 'revoke', ...args.map((a) => (a === 'ID' ? id : a))])
  expect(r.code).toBe(code)
  expect(r.stdout).toBe('')
  expect(r.stderr.startsWith(first)).toBe(true)
  // A usage error shows the usage after the line; a verb's refusal is the one line.
  expect(r.stderr.includes('Usage:')).toBe(code === 2)
  expect(await revokedCount()).toBe(before)
})

test('a key id in its prefixed form (key_…) revokes that key', async () => {
  const before = await revokedCount()
  const r = await cli(['keys', 'revoke', toPrefixedId('apiKey', id)])
  expect(r).toEqual({ code: 0, stdout: `Revoked key ${id}\n`, stderr: '' })
  expect(await revokedCount()).toBe(before + 1)
})
