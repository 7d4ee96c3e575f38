import { afterAll, beforeAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// A small filesystem of its own (a tmpfs of `megabytes`), to see what Herald does when its data
// volume fills up. Mounting needs root (CI runs as root); elsewhere the rows that need it skip
// with a message saying why, instead of failing on a missing privilege.

export interface SmallVolume {
  /** The mount point; empty until beforeAll has run. */
  dir: string
  /** False when the volume could not be mounted: the caller's rows skip. */
  mounted: boolean
}

function tryMount(dir: string, megabytes: number): string | null {
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir])
  return mount.exitCode === 0 ? null : mount.stderr.toString().trim() || `mount exited ${mount.exitCode}`
}

/**
 * Mounts a tmpfs of `megabytes` in beforeAll and unmounts it in afterAll. Check `mounted`
 * in each test (`if (!volume.mounted) return`): `test.skipIf` is decided before beforeAll runs.
 */
export function useSmallVolume(megabytes: number, prefix = 'herald-vol-'): SmallVolume {
  const volume: SmallVolume = { dir: '', mounted: false }
  let base = ''
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), prefix))
    const why = tryMount(base, megabytes)
    if (why === null) {
      volume.dir = base
      volume.mounted = true
      return
    }
    console.warn(
      `small-volume: cannot mount a ${megabytes} MB tmpfs (${why}); the rows that need a full volume are skipped. They run as root (CI does).`,
    )
  })
  afterAll(() => {
    if (volume.mounted) {
      // Lazy: a server still closing its files must not keep the mount (and the test) alive.
      Bun.spawnSync(['umount', '-l', base])
      volume.mounted = false
    }
    if (base) rmSync(base, { recursive: true, force: true })
  })
  return volume
}
