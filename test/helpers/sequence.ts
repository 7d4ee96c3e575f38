import { sql } from 'drizzle-orm'
import { createSmtpProvider } from '../../src/channels/smtp'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFlowWorker } from '../../src/services/flows/worker'
import { createTestApp } from './app'
import { journeyTenant, testClock } from './journey'
import { rowOf } from './raw-sql'
import { allChannels, recordingProvider } from './sender'
import { startSink } from './smtp-sink'

/**
 * An app on a test clock (Monday 2026-11-23 10:00 UTC) with the sequence and send workers
 * driven pass by pass (no loop): email goes over real SMTP to a local smtp-server sink, the
 * other channels to a recording provider. A tenant with templates, contacts and a list.
 */
export async function sequenceApp() {
  const clock = testClock()
  const t = await createTestApp({ clock })
  const sink = await startSink({ disabledCommands: ['STARTTLS'] })
  const smtp = createSmtpProvider({
    url: `smtp://127.0.0.1:${sink.port}`,
    pool: 1,
    connectionTimeout: 5000,
    socketTimeout: 5000,
  })
  const recording = recordingProvider()
  const sequences = createFlowWorker(t.ctx)
  const sender = createSendWorker(t.ctx, sendDeps, {
    providers: { ...allChannels(recording), email: smtp },
    pollMs: 10,
  })
  const tenant = await journeyTenant(t)
  const dueNow = async () =>
    (await rowOf<{ n: number }>(
      t,
      sql`SELECT CAST((SELECT count(*) FROM flow_runs r JOIN sequences s ON s.id = r.flow_id
                 WHERE s.status = 'active' AND r.next_run_at <= ${clock.now()})
              + (SELECT count(*) FROM messages m JOIN sequences s ON s.id = m.source_id
                 WHERE s.status = 'active' AND m.status = 'queued' AND m.next_attempt_at <= ${clock.now()}) AS INTEGER) AS n`,
    ))!.n
  /** Every due step and every queued send, until nothing is left to do now. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) {
      await sequences.drain()
      await sender.drain()
      if ((await dueNow()) === 0) return
    }
    throw new Error('sequence steps still due after 20 rounds')
  }
  const close = async () => {
    await sender.stop()
    await smtp.close()
    await sink.close()
  }
  /** Creates and activates a sequence; its id. */
  const sequence = async (body: Record<string, unknown>) => {
    const s = await tenant.call('POST', '/api/v1/sequences', { name: 'Seq', ...body })
    await tenant.call('POST', `/api/v1/sequences/${s.id}/activate`)
    return s.id as string
  }
  const enroll = (id: string, contactIds: string[]) =>
    tenant.call('POST', `/api/v1/sequences/${id}/enroll`, { contact_ids: contactIds })
  const runOf = async (id: string, contactId: string) =>
    (await tenant.call('GET', `/api/v1/sequences/${id}/enrollments?contact_id=${contactId}`))[0] as {
      status: string
      stop_reason: string | null
      current_step: number | null
      next_run_at: string | null
      history: { step: number; message_id?: string | null; channel?: string; skipped?: string; at: string }[]
    }
  return { ...tenant, t, clock, sink, recording, sequences, sender, settle, close, sequence, enroll, runOf }
}
