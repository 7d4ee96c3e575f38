import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SETTING_NAMES } from '../src/config'

// The Configuration table of docs/operations.md says it is "the one list of every setting". It lacked the three
// HERALD_OAUTH_EXTERNAL_* settings (described only in the OAuth section) and nothing noticed: now
// every setting of SETTING_NAMES (what loadConfig reads and /admin/settings lists) must have a row,
// with its flag, and every name in the table must be a setting.

/** Read by `herald serve` itself, not by loadConfig; its row says so. */
const NOT_IN_SETTING_NAMES = new Set(['HERALD_WAL_CHECKPOINT_THREAD'])

const readme = readFileSync(join(import.meta.dir, '../docs/operations.md'), 'utf8')
const start = readme.indexOf('\n## Configuration\n')
const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
/** Each table row's names (a row may hold several, `A` / `B`) and its flag cell. */
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('| `HERALD_'))
  .map((line) => {
    const [names = '', flag = ''] = line.split('|').slice(1)
    return { names: [...names.matchAll(/HERALD_[A-Z0-9_]+/g)].map((m) => m[0]), flag: flag.trim() }
  })
const tableNames = rows.flatMap((r) => r.names)

test('the Configuration table is found', () => {
  expect(start).toBeGreaterThan(0)
  expect(rows.length).toBeGreaterThan(20)
})

test.each(
  Object.values(SETTING_NAMES).map((s) => [s.env, s.flag ?? null] as const),
)('%s has a row in the Configuration table, with its flag', (env, flag) => {
  const row = rows.find((r) => r.names.includes(env))
  expect(row).toBeDefined()
  expect(row!.flag).toBe(flag === null ? '' : `\`--${flag}\``)
})

test('every name in the table is a setting', () => {
  const known = new Set(Object.values(SETTING_NAMES).map((s) => s.env))
  expect(tableNames.filter((n) => !known.has(n) && !NOT_IN_SETTING_NAMES.has(n))).toEqual([])
  expect(new Set(tableNames).size).toBe(tableNames.length)
})
