// Chromium installed on first need: never when present, a one-line instruction without root, one
// install however many callers wait for it, and a lock left by a dead process taken over.
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ChromiumSetup, ensureChromium } from './chromium-install'

const dir = mkdtempSync(join(tmpdir(), 'herald-chromium-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let serial = 0
/** A setup whose "chromium" is a file of its own and whose install creates it after `ms`. */
function setup(o: Partial<ChromiumSetup> & { ms?: number } = {}) {
  serial += 1
  const path = join(dir, `chromium-${serial}`)
  const calls = { install: 0 }
  const s: ChromiumSetup = {
    path,
    root: true,
    lock: join(dir, `lock-${serial}`),
    pollMs: 5,
    install: async () => {
      calls.install += 1
      await Bun.sleep(o.ms ?? 20)
      writeFileSync(path, '#!/bin/sh\n')
      chmodSync(path, 0o755)
    },
    ...o,
  }
  return { s, calls }
}

describe('ensureChromium', () => {
  test('present: nothing is installed', async () => {
    const { s, calls } = setup()
    writeFileSync(s.path, '')
    chmodSync(s.path, 0o755)
    await ensureChromium(s)
    expect(calls.install).toBe(0)
  })

  test('missing, not root: fails with the command to run, installs nothing', async () => {
    const { s, calls } = setup({ root: false })
    const error = await ensureChromium(s).catch((e: Error) => e)
    expect((error as Error).message).toBe(
      `no Chromium at ${s.path} for the browser tests: run sudo apt-get install chromium`,
    )
    expect(calls.install).toBe(0)
  })

  test('missing, root: installed once, the lock released', async () => {
    const { s, calls } = setup()
    await ensureChromium(s)
    expect(calls.install).toBe(1)
    expect(existsSync(s.lock)).toBe(false)
  })

  test('several waiting at once (test files, processes sharing the lock): one install', async () => {
    const { s, calls } = setup({ ms: 100 })
    await Promise.all([ensureChromium(s), ensureChromium(s), ensureChromium(s)])
    expect(calls.install).toBe(1)
  })

  test('a lock left by a process that died is taken over', async () => {
    const { s, calls } = setup()
    const dead = Bun.spawn(['true'])
    await dead.exited
    writeFileSync(s.lock, String(dead.pid))
    await ensureChromium(s)
    expect(calls.install).toBe(1)
  })

  test('a failed install: its reason, and the lock released', async () => {
    const { s } = setup({
      install: async () => {
        throw new Error('apt-get update -qq exited 100: E: no network')
      },
    })
    await expect(ensureChromium(s)).rejects.toThrow('exited 100: E: no network')
    expect(existsSync(s.lock)).toBe(false)
  })

  test('installed, yet the path (HERALD_CHROMIUM) still missing: says so', async () => {
    const { s } = setup({ install: async () => {} })
    await expect(ensureChromium(s)).rejects.toThrow(/is not an executable \(check HERALD_CHROMIUM\)/)
  })
})
