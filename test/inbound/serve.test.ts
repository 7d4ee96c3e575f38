import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTransport } from 'nodemailer'
import { DIALECT } from '../../src/db/dialect'
import { freePort } from '../helpers/binary'
import { blankDatabase } from '../helpers/postgres'

// `herald serve` starts the inbound listener only when HERALD_INBOUND_SMTP_PORT is set, says
// where in its start-up lines, and closes it on shutdown.

const data = mkdtempSync(join(tmpdir(), 'herald-inbound-serve-'))
afterAll(() => rmSync(data, { recursive: true, force: true }))

test('serve with HERALD_INBOUND_SMTP_PORT=0 listens for mail and prints the port', async () => {
  const main = join(import.meta.dir, '../../src/main.ts')
  const proc = Bun.spawn(
    [process.execPath, main, 'serve', '--port', String(freePort()), '--host', '127.0.0.1', '--data', data],
    {
      env: {
        ...process.env,
        HERALD_LOG: 'json',
        HERALD_INBOUND_DOMAIN: 'in.example.com',
        HERALD_INBOUND_SMTP_PORT: '0',
        // On PostgreSQL a database of its own (the test process's URL names no real server).
        ...(DIALECT === 'postgres' ? { HERALD_DATABASE_URL: await blankDatabase() } : {}),
      },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  let out = ''
  const decoder = new TextDecoder()
  const reader = proc.stdout.getReader()
  let port: number | null = null
  const deadline = Date.now() + 15_000
  while (port === null && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    out += decoder.decode(value)
    const m = /^ {2}Inbound SMTP: port (\d+)$/m.exec(out)
    if (m) port = Number(m[1])
  }
  reader.releaseLock()
  if (port === null) {
    proc.kill('SIGKILL')
    throw new Error(`no "Inbound SMTP" line; output:\n${out}\n${await new Response(proc.stderr).text()}`)
  }

  // It answers SMTP, and only for the inbound domain.
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true })
  const refused = await transport
    .sendMail({ from: 'a@example.org', to: 'b@elsewhere.example', subject: 'x', text: 'x' })
    .catch((e: { responseCode?: number }) => e)
  expect((refused as { responseCode?: number }).responseCode).toBe(550)
  const accepted = await transport.sendMail({
    from: 'a@example.org',
    to: 'postmaster@in.example.com',
    subject: 'x',
    text: 'x',
  })
  expect(accepted.response).toContain('Accepted (ignored)')

  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
  const closed = await transport
    .sendMail({ from: 'a@example.org', to: 'postmaster@in.example.com', subject: 'x', text: 'x' })
    .catch((e: { code?: string }) => e)
  expect((closed as { code?: string }).code).toBe('ESOCKET')
}, 30_000)
