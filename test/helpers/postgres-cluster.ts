// A throwaway PostgreSQL cluster for the tests: Debian's server binaries, initdb + pg_ctl in a temp
// dir, on a free loopback port. PostgreSQL refuses to run as root, so as root every server command
// runs as the `postgres` system user the Debian package creates. `bun test` runs no exit handlers,
// so a watchdog process stops the cluster once the test process is gone, however it ended; a
// cluster whose watchdog was killed too is stopped by the next run, found by its owner's pid.
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { alive } from './chromium-install'
import { freePort } from './ports'

const PACKAGES = ['postgresql', 'postgresql-contrib']
const PREFIX = 'herald-pg-'

export interface Cluster {
  /** Superuser URL of the `postgres` database, over TCP. */
  url: string
  port: number
  /** The temp dir holding the data dir, the socket and the log. */
  dir: string
}

/** The newest /usr/lib/postgresql/<ver>/bin with the server binaries, or undefined. */
export function findBinDir(): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(base, versions[0], 'bin') : undefined
}

/** The server binaries' dir, installing the Debian packages first when missing and we are root. */
export function ensureBinDir(): string {
  const found = findBinDir()
  if (found) return found
  const hint = `apt-get install -y ${PACKAGES.join(' ')}`
  if (process.getuid?.() !== 0) throw new Error(`PostgreSQL is not installed: run sudo ${hint}`)
  console.error(`installing PostgreSQL for the tests (${hint})…`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const install = () =>
    Bun.spawnSync(['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', ...PACKAGES], {
      env,
      stdin: 'ignore',
    })
  // A fresh machine has no package lists yet: update once and try again.
  let result = install()
  if (result.exitCode !== 0) {
    Bun.spawnSync(['apt-get', 'update', '-qq'], { env, stdin: 'ignore' })
    result = install()
  }
  const dir = findBinDir()
  if (result.exitCode !== 0 || !dir)
    throw new Error(
      `could not install PostgreSQL (${hint}): ${result.stderr.toString().trim().split('\n').pop()}`,
    )
  return dir
}

/** The uid/gid the server runs as: ours, or the `postgres` system user when we are root. */
function serverUser(): { uid: number; gid: number; prefix: string[] } {
  if (process.getuid?.() !== 0)
    return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, prefix: [] }
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('no `postgres` system user to run PostgreSQL as: apt-get install -y postgresql')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid), prefix: ['runuser', '-u', 'postgres', '--'] }
}

function run(prefix: string[], cmd: string[], cwd: string): void {
  const r = Bun.spawnSync([...prefix, ...cmd], { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode === 0) return
  const how = r.exitCode === null ? `was killed (${r.signalCode})` : `exited ${r.exitCode}`
  throw new Error(`${cmd.join(' ')} ${how}: ${(r.stderr.toString() || r.stdout.toString()).trim()}`)
}

/**
 * Test speed over durability (a crash loses nothing a test run cares about), unless `durable`:
 * the benchmarks measure the server as it ships, every commit flushed.
 */
function settings(port: number, socketDir: string, durable: boolean): string {
  return [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${socketDir}'`,
    'max_connections = 200',
    ...(durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
    "log_min_messages = 'warning'",
  ].join('\n')
}

/** Starts a new cluster; throws with initdb's or pg_ctl's own words when it cannot. */
export function startCluster({ durable = false }: { durable?: boolean } = {}): Cluster {
  const bin = ensureBinDir()
  const user = serverUser()
  reapStale(bin, user.prefix)
  const dir = mkdtempSync(join(tmpdir(), PREFIX))
  writeFileSync(join(dir, 'owner.pid'), String(process.pid))
  chownSync(dir, user.uid, user.gid)
  const stop = stopCommand(bin, user.prefix, dir)
  // From here on the dir goes away with this process, whatever happens to it.
  watch(dir, stop)
  const data = join(dir, 'data')
  const initdb = [join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']
  try {
    run(user.prefix, [...initdb, '--locale=C.UTF-8', '--no-sync'], dir)
  } catch (e) {
    stopNow(stop, dir)
    throw e
  }
  // The free port may be taken between the probe and the server's bind: take another one.
  for (let attempt = 1; ; attempt++) {
    const port = freePort()
    writeFileSync(join(data, 'postgresql.auto.conf'), `${settings(port, dir, durable)}\n`)
    try {
      run(
        user.prefix,
        [join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start'],
        dir,
      )
      return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir }
    } catch (e) {
      if (attempt >= 3) {
        const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : ''
        stopNow(stop, dir)
        throw new Error(`${(e as Error).message}\n${log}`)
      }
    }
  }
}

/** [runuser…] pg_ctl stop for the cluster in `dir`: immediate, a test cluster has nothing to save. */
function stopCommand(bin: string, prefix: string[], dir: string): string[] {
  return [...prefix, join(bin, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']
}

function stopNow(stop: string[], dir: string): void {
  if (existsSync(join(dir, 'data', 'postmaster.pid')))
    Bun.spawnSync(stop, { cwd: '/', stdout: 'ignore', stderr: 'ignore' })
  rmSync(dir, { recursive: true, force: true })
}

/** Starts the shell loop that runs `stop` and removes `dir` once this process has ended. */
function watch(dir: string, stop: string[]): void {
  // $1: this process, $2: the cluster's dir, the rest: the command that stops the server.
  const loop =
    'owner=$1; dir=$2; shift 2; while kill -0 "$owner" 2>/dev/null; do sleep 0.5; done; "$@"; rm -rf "$dir"'
  Bun.spawn(['setsid', 'sh', '-c', loop, 'sh', String(process.pid), dir, ...stop], {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'ignore',
  }).unref()
}

/** Stops and removes the clusters of test runs that died without stopping theirs. */
function reapStale(bin: string, prefix: string[]): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue
    const dir = join(tmpdir(), name)
    let owner = 0
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'))
    } catch {
      continue // being created right now, or not ours
    }
    if (!owner || alive(owner)) continue
    stopNow(stopCommand(bin, prefix, dir), dir)
  }
}
