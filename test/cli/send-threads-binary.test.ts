import { afterAll, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { serveBinary, useBinary } from '../helpers/binary'
import { startDnsServer } from '../helpers/dns-server'
import { until } from '../helpers/receiver'
import { messageIdOf, startSink } from '../helpers/smtp-sink'

// The compiled binary sends over SMTP through its send threads (issue 15): the thread's module is
// an entry point of the executable (scripts/build.ts), found under /$bunfs/root/. A campaign
// goes out DKIM-signed to a real smtp-server sink; every message is checked with mailauth, and
// the server process runs the configured number of worker threads.

const bin = useBinary('herald-send-threads-')
const KEY = `hrld_${'Send0Threads1Key2'.repeat(3)}`
const RECIPIENTS = 60
const running = new Set<Subprocess>()
afterAll(() => {
  for (const p of running) p.kill('SIGKILL')
})

/** Names of the threads of a process (Bun names worker threads "Worker"). */
const threadNames = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())

test('dist/herald composes, signs and sends a campaign on its send threads; every message DKIM-valid', async () => {
  const dns = await startDnsServer()
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  const env = {
    ...process.env,
    HERALD_LOG: 'json',
    HERALD_BOOTSTRAP_API_KEY: KEY,
    HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    HERALD_DNS_SERVERS: dns.address,
    HERALD_SEND_THREADS: '2',
    HERALD_WARMUP: 'off', // a new signing domain's daily cap is not what this tests
  } as Record<string, string>
  const { proc, base } = await serveBinary(bin, join(bin.work, 'data'), env)
  running.add(proc)
  // Read as it comes (a full pipe would block the server); checked at the end.
  const output = Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
  ])
  const call = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': type },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const json = (await res.json()) as { data: Record<string, unknown> & { id: string } }
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`)
    return json.data
  }

  const clients = (await call('GET', '/api/v1/clients')) as unknown as { id: string }[]
  const q = `?client_id=${clients[0]!.id}`
  const domain = await call('POST', `/api/v1/domains${q}`, { domain: 'news.example' })
  for (const r of domain.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await call('POST', `/api/v1/domains/${domain.id}/verify`)).verified).toBe(true)
  await call('POST', `/api/v1/senders${q}`, { from_email: 'offers@news.example', from_name: 'News' })
  const list = await call('POST', `/api/v1/lists${q}`, { name: 'All' })
  const csv = [
    'email,first_name',
    ...Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@inbox.example,R${i}`),
  ].join('\n')
  const job = await call('POST', `/api/v1/contacts/imports${q}&list_id=${list.id}`, csv, 'text/csv')
  await until(
    async () => (await call('GET', `/api/v1/contacts/imports/${job.id}`)).status === 'completed',
    10_000,
  )
  const campaign = await call('POST', `/api/v1/campaigns${q}`, {
    name: 'Threads',
    list_id: list.id,
    subject: 'Hello {{ contact.first_name }}',
    body_html: '<p>Hi {{ contact.first_name }}</p><a href="https://news.example/offer">Offer</a>',
  })
  await call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
  await until(
    async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).status === 'sent',
    30_000,
    'sent',
  )

  // The main thread plus the two send threads (the import's parse worker has ended by now).
  expect(threadNames(proc.pid).filter((n) => n === 'Worker').length).toBeGreaterThanOrEqual(2)
  expect(sink.received.map((m) => m.rcptTo[0]).sort()).toEqual(
    Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@inbox.example`).sort(),
  )
  for (const m of sink.received) {
    const { results } = await dkimVerify(m.raw, {
      resolver: (name: string, type: string) => dns.resolve(name, type),
    } as never)
    expect(results[0]!.status.result).toBe('pass')
    const head = m.raw
      .toString('latin1')
      .split('\r\n\r\n')[0]!
      .replace(/\r\n[ \t]+/g, ' ')
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
    const h = /^DKIM-Signature:.*\bh=([^;]+)/im.exec(head)![1]!.replace(/\s+/g, '').toLowerCase().split(':')
    expect(h).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']))
    expect(messageIdOf(m.raw)).toMatch(/^<[0-9a-f-]{36}@news\.example>$/)
    const i = Number(/^r(\d+)@/.exec(m.rcptTo[0]!)![1])
    expect(head).toContain(`\r\nSubject: Hello R${i}\r\n`)
  }
  expect(await call('GET', `/api/v1/campaigns/${campaign.id}/stats`)).toMatchObject({
    sent: RECIPIENTS,
    delivered: RECIPIENTS,
  })

  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
  // Nothing went wrong on a thread.
  expect((await output).join('')).not.toContain('send thread')
  await sink.close()
}, 120_000)
