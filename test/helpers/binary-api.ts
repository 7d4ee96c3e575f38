import { afterAll, expect } from 'bun:test'
import type { Subprocess } from 'bun'
import { type BinaryFixture, serveBinary } from './binary'
import { startDnsServer, type TestDnsServer } from './dns-server'
import { until } from './receiver'
import { headerOf, messageIdOf, type Received, startSink } from './smtp-sink'

// The REST API of a served binary, for end-to-end tests: calls with the bootstrap key, the
// sending set-up every send test on the binary starts from (a domain verified against the test
// DNS server, a sender, a list filled by a CSV import), and the kill -9 loop and Message-ID check
// of the crash tests.

/** The whole JSON body of an answer; a non-2xx answer throws with its body, so a test says why. */
// biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
export type ApiCall = (method: string, path: string, body?: unknown, type?: string) => Promise<any>

export function binaryApi(base: string, key: string): { body: ApiCall; call: ApiCall } {
  const body: ApiCall = async (method, path, payload, type = 'application/json') => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': type },
      body:
        payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
    })
    const json = await res.json()
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  /** The answer's `data` (most tests want only that). */
  const call: ApiCall = async (...args) => (await body(...args)).data
  return { body, call }
}

/** In the first workspace: a list of `count` contacts (`r<i>@inbox.example`) imported by CSV. */
export async function importedList(
  call: ApiCall,
  count: number,
): Promise<{ q: string; list: { id: string } }> {
  const clientId = ((await call('GET', '/api/v1/clients')) as { id: string }[])[0]!.id
  const q = `?client_id=${clientId}`
  const list = await call('POST', `/api/v1/lists${q}`, { name: 'All' })
  const csv = ['email', ...Array.from({ length: count }, (_, i) => `r${i}@inbox.example`)].join('\n')
  const job = await call('POST', `/api/v1/contacts/imports${q}&list_id=${list.id}`, csv, 'text/csv')
  await until(
    async () => (await call('GET', `/api/v1/contacts/imports/${job.id}`)).status === 'completed',
    10_000,
  )
  return { q, list }
}

export interface SendingAudience {
  /** `?client_id=…` of the workspace set up, for creating in it. */
  q: string
  list: { id: string }
}

/**
 * In the first workspace (or `clientId`): `domain` added, its records published on `dns` and verified, a sender
 * `from`@domain, and a list of `contacts` addresses (`<prefix><i>@inbox.example`) imported.
 */
export async function sendingAudience(
  call: ApiCall,
  dns: TestDnsServer,
  o: {
    domain: string
    from: string
    fromName: string
    contacts: number
    prefix: string
    importMs: number
    /** The client to set up (default: the first one). */
    clientId?: string
  },
): Promise<SendingAudience> {
  const clientId = o.clientId ?? ((await call('GET', '/api/v1/clients')) as { id: string }[])[0]!.id
  const q = `?client_id=${clientId}`
  const domain = await call('POST', `/api/v1/domains${q}`, { domain: o.domain })
  for (const r of domain.dns_records as { name: string; value: string; value_parts?: string[] }[])
    dns.zone.set(r.name, [r.value_parts ?? [r.value]])
  expect((await call('POST', `/api/v1/domains/${domain.id}/verify`)).verified).toBe(true)
  await call('POST', `/api/v1/senders${q}`, { from_email: `${o.from}@${o.domain}`, from_name: o.fromName })
  const list = await call('POST', `/api/v1/lists${q}`, { name: 'All' })
  const csv = [
    'email',
    ...Array.from({ length: o.contacts }, (_, i) => `${o.prefix}${i}@inbox.example`),
  ].join('\n')
  const job = await call('POST', `/api/v1/contacts/imports${q}&list_id=${list.id}`, csv, 'text/csv')
  await until(
    async () => (await call('GET', `/api/v1/contacts/imports/${job.id}`)).status === 'completed',
    o.importMs,
  )
  return { q, list }
}

/**
 * Where a send test on the binary sends: the test DNS server, a plain-SMTP sink on loopback, and
 * the env that points the server at both (with `env`), warm-up off (a just-verified domain would
 * be held at 50 messages on its first day).
 */
export async function smtpWorld(env: Record<string, string> = {}) {
  const dns = await startDnsServer()
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  return {
    dns,
    sink,
    env: {
      HERALD_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      HERALD_DNS_SERVERS: dns.address,
      ...env,
      HERALD_WARMUP: 'off',
    },
  }
}

export interface KeyedServer {
  proc: Subprocess
  /** `http://127.0.0.1:<port>` */
  base: string
  body: ApiCall
  call: ApiCall
}

/**
 * Leases of seconds instead of minutes: after a kill -9 the restarted server takes over what the
 * dead one held once its leases run out, and these tests should not wait minutes for that. The
 * send timeout (which a lease must outlast) stays long enough for a loaded CI machine: a local
 * SMTP send that timed out would wait out a retry delay and miss the tests' windows.
 */
export const SHORT_LEASES = {
  HERALD_SEND_LEASE_MS: '10000',
  HERALD_SEND_TIMEOUT_MS: '9000',
  HERALD_WEBHOOK_LEASE_MS: '3000',
  HERALD_IMPORT_LEASE_MS: '3000',
}

/**
 * Starts `herald serve` of `bin` with the bootstrap `key` (JSON logs, output ignored, short
 * leases) on a data directory, with `env` on top. Servers still running after the file's tests are SIGKILLed, so a
 * failed run leaves none behind.
 */
export function keyedServers(
  bin: BinaryFixture,
  key: string,
): (data: string, env: Record<string, string>) => Promise<KeyedServer> {
  const running = new Set<Subprocess>()
  afterAll(() => {
    for (const p of running) p.kill('SIGKILL')
  })
  return async (data, env) => {
    const { proc, base } = await serveBinary(
      bin,
      data,
      {
        ...process.env,
        HERALD_LOG: 'json',
        HERALD_BOOTSTRAP_API_KEY: key,
        ...SHORT_LEASES,
        ...env,
      } as Record<string, string>,
      'ignore',
    )
    running.add(proc)
    void proc.exited.then(() => running.delete(proc))
    return { proc, base, ...binaryApi(base, key) }
  }
}

/**
 * Kills the server with SIGKILL `crashes` times, the n-th once `reached()` is at n/(crashes+1) of
 * `total` (mid-send), and starts it again with `restart` each time; answers the last server.
 */
export async function killDuring<S extends { proc: Subprocess }>(
  server: S,
  restart: () => Promise<S>,
  o: { crashes: number; total: number; reached: () => number; what?: string; timeoutMs?: number },
): Promise<S> {
  let h = server
  for (let crash = 1; crash <= o.crashes; crash++) {
    const target = (o.total * crash) / (o.crashes + 1)
    const what = `${target} ${o.what ?? 'sends'} before kill ${crash}`
    await until(() => o.reached() >= target, o.timeoutMs ?? 30_000, what)
    h.proc.kill('SIGKILL')
    await h.proc.exited
    h = await restart()
  }
  return h
}

/** A message's recipient and the first word of its subject: one key per step sent to a contact. */
export const recipientAndSubject = (m: Received) =>
  `${m.rcptTo[0]}|${headerOf(m.raw, 'Subject')?.split(' ')[0]}`

/**
 * After the kills: each of `count` keys (a recipient, or a recipient and subject) arrived, and
 * every copy of it (the batch in flight at a kill is sent again) carries one Message-ID, answered
 * per key.
 */
export function expectOneMessageIdEach(
  received: Received[],
  key: (m: Received) => string,
  count: number,
): Map<string, string | null> {
  const ids = new Map<string, Set<string | null>>()
  for (const m of received) ids.set(key(m), (ids.get(key(m)) ?? new Set()).add(messageIdOf(m.raw)))
  expect(ids.size).toBe(count)
  for (const [k, set] of ids) expect(set.size, `${k} got different Message-IDs`).toBe(1)
  return new Map([...ids].map(([k, set]) => [k, [...set][0]!]))
}
