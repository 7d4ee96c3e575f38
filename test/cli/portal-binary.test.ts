import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { runBinary, serveBinary, useBinary } from '../helpers/binary'

// The portal and `herald users` from the compiled executable, run from a directory with nothing
// beside it: views, htmx, Pico and our assets must all be embedded.
const bin = useBinary('herald-portal-bin-')
const env = { ...process.env, HERALD_LOG: 'json' } as Record<string, string>
delete env.HERALD_BOOTSTRAP_API_KEY
delete env.HERALD_ADMIN_PASSWORD

const run = (args: string[]) => runBinary(bin, args, env)

async function signIn(base: string, email: string, password: string) {
  const form = await fetch(`${base}/admin/login`)
  const html = await form.text()
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!
  const loginCookie = form.headers.getSetCookie()[0]!.split(';')[0]!
  return fetch(`${base}/admin/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }),
  })
}

describe('portal in the binary', () => {
  test('herald users create|list|reset-password, then sign in to the served portal', async () => {
    const data = join(bin.work, 'data')
    expect((await run(['migrate', '--data', data])).code).toBe(0)
    const created = await run([
      'users',
      'create',
      '--email',
      'Ops@Example.com',
      '--role',
      'admin',
      '--data',
      data,
    ])
    expect(created.code).toBe(0)
    const password = /Password \(shown once\): (\S+)/.exec(created.stdout)![1]!
    expect(password.length).toBeGreaterThanOrEqual(20)
    const listed = JSON.parse((await run(['users', 'list', '--json', '--data', data])).stdout)
    expect(listed.map((u: { email: string; role: string }) => [u.email, u.role])).toContainEqual([
      'ops@example.com',
      'admin',
    ])
    // Usage errors: exit 2.
    expect((await run(['users', 'create', '--data', data])).code).toBe(2)
    expect(
      (await run(['users', 'create', '--email', 'x@example.com', '--role', 'boss', '--data', data])).code,
    ).toBe(2)
    expect(
      (await run(['users', 'create', '--email', 'm@example.com', '--role', 'member', '--data', data])).code,
    ).toBe(2)
    // A duplicate is refused (exit 1, the verb's message).
    const dup = await run(['users', 'create', '--email', 'ops@example.com', '--data', data])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('exists')
    const reset = await run([
      'users',
      'reset-password',
      'ops@example.com',
      '--password',
      'a-new-password-42',
      '--data',
      data,
    ])
    expect(reset.code).toBe(0)
    expect(reset.stdout).not.toContain('shown once')
    expect((await run(['users', 'reset-password', 'nobody@example.com', '--data', data])).code).toBe(1)

    const server = await serveBinary(bin, data, env)
    try {
      const old = await signIn(server.base, 'ops@example.com', password)
      expect(old.status).toBe(200) // the old password no longer works: the form again
      const ok = await signIn(server.base, 'ops@example.com', 'a-new-password-42')
      expect(ok.status).toBe(303)
      const session = ok.headers
        .getSetCookie()
        .find((c) => c.startsWith('herald_session='))!
        .split(';')[0]!
      const keys = await fetch(`${server.base}/admin/api-keys`, { headers: { cookie: session } })
      expect(keys.status).toBe(200)
      const html = await keys.text()
      expect(html).toContain('<h1>API keys</h1>')
      // Every asset the layout names is served from the binary, gzipped, cacheable for a year.
      const assets = [...html.matchAll(/(?:src|href)="(\/admin\/static\/[^"]+)"/g)].map((m) => m[1]!)
      expect(assets.length).toBe(4)
      for (const path of assets) {
        const res = await fetch(server.base + path, { headers: { 'accept-encoding': 'gzip' } })
        expect(res.status).toBe(200)
        expect(res.headers.get('cache-control')).toContain('immutable')
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100)
      }
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }
  }, 120_000)
})
