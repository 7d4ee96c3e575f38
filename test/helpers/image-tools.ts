// The container tools of the image test (debootstrap, buildah, podman, runc), installed from
// Debian's packages on first need, as the browser tests install Chromium: as root through apt;
// without root the test fails naming the command that fixes it.
import { executable as present } from './chromium-install'

const TOOLS = {
  debootstrap: '/usr/sbin/debootstrap',
  buildah: '/usr/bin/buildah',
  podman: '/usr/bin/podman',
  runc: '/usr/sbin/runc',
}

/** Runs a command to its end; rejects with its last line of output when it fails. */
export async function run(cmd: string[], opts: { env?: Record<string, string>; stdin?: Blob } = {}) {
  const p = Bun.spawn(cmd, {
    env: { ...process.env, ...opts.env },
    stdin: opts.stdin ?? 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ])
  if (code !== 0) {
    const last = (err.trim() || out.trim()).split('\n').slice(-3).join(' | ')
    throw new Error(`${cmd.slice(0, 3).join(' ')} … exited ${code}: ${last}`)
  }
  return out
}

export async function imageToolsReady(): Promise<void> {
  const missing = Object.entries(TOOLS)
    .filter(([, path]) => !present(path))
    .map(([name]) => name)
  if (!missing.length) return
  if (process.getuid?.() !== 0)
    throw new Error(
      `the image test needs ${missing.join(', ')}: run sudo apt-get install ${missing.join(' ')}`,
    )
  console.error(`installing ${missing.join(', ')} for the image test (apt-get install -y)…`)
  // dpkg's lock is waited for, not failed on: the browser tests may be installing Chromium now.
  const env = { DEBIAN_FRONTEND: 'noninteractive' }
  const wait = ['-o', 'DPkg::Lock::Timeout=600']
  await run(['apt-get', ...wait, 'update', '-qq'], { env })
  await run(['apt-get', ...wait, 'install', '-y', '-qq', ...missing], { env })
}
