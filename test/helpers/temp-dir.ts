import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Scratch directories for a test file's own files, removed after its tests: a test run leaves
 * nothing behind in the system's temporary directory. Call at the file's top level; the answer
 * makes a new empty directory named `<prefix>XXXXXX`.
 */
export function scratchDirs(): (prefix: string) => string {
  const made: string[] = []
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    made.push(dir)
    return dir
  }
}
