import { expect } from 'bun:test'
import type { TestDnsServer } from './dns-server'
import { until } from './receiver'

// The REST API of a served binary, for end-to-end tests: calls with the bootstrap key, and the
// sending set-up every send test on the binary starts from (a domain verified against the test
// DNS server, a sender, a list filled by a CSV import).

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

export interface SendingAudience {
  /** `?client_id=…` of the bootstrap workspace, for creating in it. */
  q: string
  list: { id: string }
}

/**
 * In the first workspace: `domain` added, its records published on `dns` and verified, a sender
 * `from`@domain, and a list of `contacts` addresses (`<prefix><i>@inbox.example`) imported.
 */
export async function sendingAudience(
  call: ApiCall,
  dns: TestDnsServer,
  o: { domain: string; from: string; fromName: string; contacts: number; prefix: string; importMs: number },
): Promise<SendingAudience> {
  const clients = (await call('GET', '/api/v1/clients')) as { id: string }[]
  const q = `?client_id=${clients[0]!.id}`
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
