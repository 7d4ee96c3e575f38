import { sql } from 'drizzle-orm'
import type { Clock } from '../../src/lib/time'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFlowWorker } from '../../src/services/flows/worker'
import { createTestApp, type TestApp } from './app'
import { rowOf } from './raw-sql'
import { allChannels, recordingProvider } from './sender'

/** A settable clock: tests move it instead of waiting. */
export function testClock(start = '2026-11-23T10:00:00.000Z') {
  const clock = { t: Date.parse(start), now: () => clock.t }
  return clock as Clock & { t: number }
}

/**
 * An app on a test clock with the journey and send workers driven pass by pass (no loop), a
 * recording provider on every channel, and a tenant with two email templates and an SMS one.
 */
export async function journeyApp(env: Record<string, string> = {}) {
  const clock = testClock()
  const t = await createTestApp({ env: { HERALD_WEBHOOK_ALLOW_PRIVATE: '1', ...env }, clock })
  const provider = recordingProvider()
  const journeys = createFlowWorker(t.ctx)
  const sender = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  const tenant = await journeyTenant(t)
  /** Every due step and every queued send, until nothing is left to do now. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) {
      await journeys.drain()
      await sender.drain()
      const due = (await rowOf<{ n: number }>(
        t,
        sql`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_runs r JOIN journeys j ON j.id = r.flow_id WHERE j.status = 'active' AND r.next_run_at <= ${clock.now()}`,
      ))!.n
      if (due === 0) return
    }
  }
  return { t, clock, provider, journeys, sender, settle, ...tenant }
}

export async function journeyTenant(t: TestApp, name = 'Acme') {
  const clientId = await t.client(name)
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await t.call(method, path, { key, body })
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
    return r.body.data
  }
  const welcome = await call('POST', '/api/v1/templates', {
    name: 'Welcome',
    subject: 'Welcome {{ contact.first_name }}',
    body_html:
      '<p>Hi {{ contact.first_name }} from {{ journey.name }}</p><a href="https://example.com/x">x</a>',
  })
  const nudge = await call('POST', '/api/v1/templates', {
    name: 'Nudge',
    subject: 'Still there?',
    body_text: 'Nudge',
  })
  const sms = await call('POST', '/api/v1/templates', {
    name: 'SMS',
    channel: 'sms',
    body_text: 'Hi {{ contact.first_name }}',
  })
  const list = await call('POST', '/api/v1/lists', { name: 'Trial' })
  const contact = async (email: string, extra: Record<string, unknown> = {}) =>
    (await call('POST', '/api/v1/contacts', { email, first_name: email.split('@')[0], ...extra }))
      .id as string
  /** Creates and activates a journey of these nodes; its id. */
  const journey = async (nodes: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
    const j = await call('POST', '/api/v1/journeys', { name: 'J', nodes, ...extra })
    await call('POST', `/api/v1/journeys/${j.id}/activate`)
    return j.id as string
  }
  const enroll = (id: string, contactIds: string[]) =>
    call('POST', `/api/v1/journeys/${id}/enroll`, { contact_ids: contactIds })
  const enrollments = async (id: string) =>
    (await t.call('GET', `/api/v1/journeys/${id}/enrollments?limit=200`, { key })).body.data as {
      contact_id: string
      status: string
      exit_reason: string | null
      current_node: string | null
      next_run_at: string | null
      history: { node: string; at: string; [k: string]: unknown }[]
    }[]
  const enrollmentOf = async (id: string, contactId: string) =>
    (await enrollments(id)).find((e) => e.contact_id === contactId)!
  return {
    clientId,
    key,
    call,
    templates: { welcome, nudge, sms },
    list,
    contact,
    journey,
    enroll,
    enrollments,
    enrollmentOf,
  }
}
