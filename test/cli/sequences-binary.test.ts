import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { serveBinary, useBinary } from '../helpers/binary'
import { type ApiCall, binaryApi, sendingAudience } from '../helpers/binary-api'
import { startDnsServer } from '../helpers/dns-server'
import { until } from '../helpers/receiver'
import { messageIdOf, startSink } from '../helpers/smtp-sink'

// Sequences on the compiled binary, crash safety: kill -9 while a 1,000-contact two-step
// sequence sends over SMTP (through the send threads). No step is lost (every run completes,
// each step queued exactly one message per contact) and none repeats (a resend after a kill
// carries the same Message-ID), and the thread holds across restarts: each second email's
// In-Reply-To is the Message-ID its contact's first email arrived with.

const bin = useBinary('herald-sequences-')
const KEY = `hrld_${'Sequence0Bin1Key2'.repeat(3)}`
const running = new Set<Subprocess>()
afterAll(() => {
  for (const p of running) p.kill('SIGKILL') // a failed run leaves no server behind
})

async function start(data: string, env: Record<string, string>) {
  const { proc, base } = await serveBinary(
    bin,
    data,
    { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY, ...env } as Record<string, string>,
    'ignore',
  )
  running.add(proc)
  void proc.exited.then(() => running.delete(proc))
  const api = binaryApi(base, KEY)
  const call: ApiCall = (method, path, ...rest) =>
    path.includes('enrollments') ? api.body(method, path, ...rest) : api.call(method, path, ...rest)
  return { proc, call }
}

const CONTACTS = 1_000
const CRASHES = 2

test(`kill -9 ${CRASHES} times during a ${CONTACTS}-contact sequence: no step lost, none repeated, threads intact`, async () => {
  const dns = await startDnsServer()
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  const env = {
    HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    HERALD_DNS_SERVERS: dns.address,
    HERALD_SEND_RATE: '400',
    HERALD_WARMUP: 'off',
  }
  const data = join(bin.work, 'crash')
  let h = await start(data, env)
  const { q, list } = await sendingAudience(h.call, dns, {
    domain: 'sequences.example',
    from: 'hello',
    fromName: 'S',
    contacts: CONTACTS,
    prefix: 's',
    importMs: 15_000,
  })
  const sequence = await h.call('POST', `/api/v1/sequences${q}`, {
    name: 'Crash',
    steps: [
      { subject: 'First {{ contact.email }}', body_text: 'one' },
      { body_text: 'two', delay: 'PT2S' },
    ],
  })
  await h.call('POST', `/api/v1/sequences/${sequence.id}/activate`)
  expect(
    (await h.call('POST', `/api/v1/sequences/${sequence.id}/enroll`, { list_id: list.id })).enrolled,
  ).toBe(CONTACTS)

  const total = CONTACTS * 2
  const key = (m: { rcptTo: string[]; raw: Buffer }) =>
    `${m.rcptTo[0]}|${header(m.raw, 'Subject')?.split(' ')[0]}`
  const reached = () => new Set(sink.received.map(key)).size
  for (let crash = 1; crash <= CRASHES; crash++) {
    const target = (total * crash) / (CRASHES + 1)
    await until(() => reached() >= target, 30_000, `${target} sends before kill ${crash}`)
    h.proc.kill('SIGKILL')
    await h.proc.exited
    h = await start(data, env)
  }
  const completed = async () =>
    (await h.call('GET', `/api/v1/sequences/${sequence.id}/enrollments?status=completed&limit=1`)).pagination
      .total
  await until(async () => (await completed()) === CONTACTS, 60_000, 'every run completed')
  await until(() => reached() >= total, 30_000, 'every message received')

  // No step lost or repeated: each step queued exactly one message per contact.
  const s = await h.call('GET', `/api/v1/sequences/${sequence.id}`)
  expect(s.stats.map((x: { sent: number }) => x.sent)).toEqual([CONTACTS, CONTACTS])
  // Every contact got each message; a duplicate (a batch in flight at a kill) has the same Message-ID.
  const ids = new Map<string, Set<string | null>>()
  for (const m of sink.received) ids.set(key(m), (ids.get(key(m)) ?? new Set()).add(messageIdOf(m.raw)))
  expect(ids.size).toBe(total)
  for (const [k, set] of ids) expect(set.size, `${k} got different Message-IDs`).toBe(1)
  for (const m of sink.received) {
    if (!header(m.raw, 'Subject')?.startsWith('Re: First')) continue
    const first = ids.get(`${m.rcptTo[0]}|First`)
    expect(first?.has(header(m.raw, 'In-Reply-To') ?? '')).toBe(true)
  }
  console.log(
    `sequence crash test: ${CONTACTS} contacts × 2 steps, ${CRASHES} kills, ${sink.received.length - total} duplicate deliveries (same Message-ID)`,
  )
  h.proc.kill('SIGTERM')
  expect(await h.proc.exited).toBe(0)
  await sink.close()
}, 180_000)

/** An unfolded header's value from the raw message head. */
function header(raw: Buffer, name: string): string | null {
  const head = raw
    .toString('latin1')
    .split('\r\n\r\n')[0]!
    .replace(/\r\n[ \t]+/g, ' ')
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? null
}
