import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { freePort } from '../helpers/ports'

// `herald doctor` as an operator runs it (a process of its own, on the data directory): each
// problem is a named row of the table and any fail makes the exit status 1.

const MAIN = join(import.meta.dir, '../../src/main.ts')

/** Spawned, not run in-process: the in-process app must keep answering meanwhile. */
async function doctor(t: TestApp, env: Record<string, string>) {
  // The app's own store: its PostgreSQL database when the run is on PostgreSQL.
  const url = t.ctx.config.databaseUrl
  const store = url ? { HERALD_DATABASE_URL: url } : {}
  const p = Bun.spawn(['bun', MAIN, 'doctor', '--data', t.dataDir], {
    env: { PATH: process.env.PATH ?? '', ...store, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ])
  return { code, out, err }
}

/** The status and detail of the table's row for `check`. */
function row(out: string, check: string): { status: string; detail: string } | undefined {
  const line = out.split('\n').find((l) => l.startsWith(`${check}  `))
  const m = line && /^.+?\s{2,}(ok|warn|fail)\s+(.*)$/.exec(line)
  return m ? { status: m[1]!, detail: m[2]! } : undefined
}

test('a closed SMTP port, an unverified domain and an unreachable public URL are each named; exit 1', async () => {
  const dns = await startDnsServer()
  const env = {
    HERALD_PUBLIC_URL: `http://127.0.0.1:${freePort()}`,
    HERALD_EMAIL_PROVIDER: 'smtp',
    HERALD_SMTP_URL: `smtp://user:pass@127.0.0.1:${freePort()}`,
    HERALD_DNS_SERVERS: dns.address,
  }
  const t = await createTestApp({ env })
  const domain = await t.call('POST', `/api/v1/domains?client_id=${t.defaultClientId}`, {
    body: { domain: 'news.example' },
  })
  expect(domain.text).toContain('news.example')
  expect(domain.status).toBe(200)

  const r = await doctor(t, env)
  expect(r.err).toBe('')
  expect(r.code).toBe(1)
  expect(r.out).toStartWith('check')
  expect(row(r.out, 'public URL answers')).toMatchObject({ status: 'fail' })
  expect(row(r.out, 'public URL answers')!.detail).toContain(`${env.HERALD_PUBLIC_URL}/healthz`)
  expect(row(r.out, 'domain news.example')).toMatchObject({ status: 'fail' })
  expect(row(r.out, 'domain news.example')!.detail).toContain('DKIM fail')
  expect(row(r.out, 'sending Default workspace email')).toMatchObject({ status: 'fail' })
  expect(row(r.out, 'sending Default workspace email')!.detail).toContain('connect failed')
  expect(row(r.out, 'disk')).toMatchObject({ status: 'ok' })
  expect(row(r.out, 'secret key')).toMatchObject({ status: 'ok' })
  expect(r.out).toContain('3 failed')
}, 60_000)

test('an answering public URL and nothing to send through: warnings only, exit 0', async () => {
  const port = freePort()
  const env = { HERALD_PUBLIC_URL: `http://127.0.0.1:${port}` }
  const t = await createTestApp({ env })
  t.app.listen({ port, hostname: '127.0.0.1' })
  const r = await doctor(t, env)
  t.app.stop(true)
  expect(r.err).toBe('')
  expect(row(r.out, 'public URL answers')).toMatchObject({ status: 'ok' })
  expect(row(r.out, 'clock')).toMatchObject({ status: 'ok' })
  expect(row(r.out, 'email provider')).toMatchObject({ status: 'warn' })
  expect(r.out).not.toContain('  fail  ')
  expect(r.code).toBe(0)
}, 60_000)
