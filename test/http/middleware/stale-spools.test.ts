import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeStaleSpools } from '../../../src/http/middleware/upload'

const dir = mkdtempSync(join(tmpdir(), 'herald-spools-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const spool = (name: string, ageMs: number) => {
  const file = join(dir, name)
  writeFileSync(file, 'email\n')
  const at = (Date.now() - ageMs) / 1000
  utimesSync(file, at, at)
}

test('in a directory shared with other processes only spools older than the limit go; otherwise every spool', () => {
  spool('old.upload', 2 * 60 * 60 * 1000)
  spool('live.upload', 1000) // another process's request is still writing it
  spool('notes.txt', 2 * 60 * 60 * 1000) // not a spool
  expect(removeStaleSpools(dir, { olderThanMs: 60 * 60 * 1000 })).toBe(1)
  expect(readdirSync(dir).sort()).toEqual(['live.upload', 'notes.txt'])
  expect(removeStaleSpools(dir)).toBe(1)
  expect(readdirSync(dir)).toEqual(['notes.txt'])
})
