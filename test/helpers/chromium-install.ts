// Chromium for the browser tests, installed on first need: `bun test` on a fresh Debian machine
// passes with nothing installed by hand. Only a test file that launches a browser waits for it.
// As root the missing package is installed through apt, once per run: in-process by a shared
// promise, across processes by a lock file that one process holds while the others wait. Without
// root the browser tests fail with the one command that fixes them.
import { accessSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** apt-get update + install may take minutes on a slow mirror; a browser hook waits this long. */
export const CHROMIUM_INSTALL_TIMEOUT_MS = 10 * 60_000

export interface ChromiumSetup {
  /** The executable the tests launch. */
  path: string
  /** Whether this process may install packages (runs as root). */
  root: boolean
  /** Installs the package; rejects with the reason it could not. */
  install: () => Promise<void>
  /** The lock file held by the one process that installs. */
  lock: string
  /** How often a waiting process looks at the lock again. */
  pollMs?: number
}

/** Whether `path` is a file this process may run. */
export const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Resolves once `path` is an executable, installing Chromium first when it is missing. */
export async function ensureChromium(o: ChromiumSetup): Promise<void> {
  if (executable(o.path)) return
  if (!o.root)
    throw new Error(`no Chromium at ${o.path} for the browser tests: run sudo apt-get install chromium`)
  const deadline = Date.now() + CHROMIUM_INSTALL_TIMEOUT_MS
  while (!takeLock(o.lock)) {
    if (executable(o.path)) return
    if (Date.now() > deadline) throw new Error(`gave up waiting for the install that holds ${o.lock}`)
    await Bun.sleep(o.pollMs ?? 500)
  }
  try {
    // Another process may have installed it between our first look and the lock.
    if (executable(o.path)) return
    await o.install()
  } finally {
    rmSync(o.lock, { force: true })
  }
  if (!executable(o.path))
    throw new Error(`chromium is installed but ${o.path} is not an executable (check HERALD_CHROMIUM)`)
}

/** Creates the lock holding our pid; takes over a lock whose holder has died. */
function takeLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx')
    writeSync(fd, String(process.pid))
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  let holder = 0
  try {
    holder = Number(readFileSync(lock, 'utf8'))
  } catch {
    return false // removed meanwhile: the next look may take it
  }
  if (holder > 0 && !alive(holder)) rmSync(lock, { force: true })
  return false
}

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** `apt-get update && apt-get install -y chromium`, without questions; rejects with apt's last line. */
export async function aptInstallChromium(): Promise<void> {
  console.error('installing Chromium for the browser tests (apt-get install -y chromium)…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'chromium'],
  ]) {
    const p = Bun.spawn(['apt-get', ...args], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ])
    if (code !== 0) {
      const last = (err.trim() || out.trim()).split('\n').pop()
      throw new Error(`apt-get ${args.join(' ')} exited ${code}: ${last}`)
    }
  }
}

let ready: Promise<void> | undefined

/**
 * Chromium at `path`, installed at most once per process; a failure is kept, so every browser
 * test file of the run reports it at once instead of trying again.
 */
export function chromiumReady(path: string): Promise<void> {
  ready ??= ensureChromium({
    path,
    root: process.getuid?.() === 0,
    install: aptInstallChromium,
    lock: join(tmpdir(), 'herald-chromium-install.lock'),
  })
  return ready
}
