import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { silentLogger } from '../../../src/lib/log'
import { createSendWorker } from '../../../src/queue/worker'
import { sendDeps } from '../../../src/sending'
import {
  HEALTH_CHECK_INTERVAL_MS,
  healthChecksDue,
  runPendingHealthChecks,
} from '../../../src/services/deliverability/health-debounce'
import { recordBounce, recordComplaint } from '../../../src/services/messages/activity'
import { createTestApp, type TestApp } from '../../helpers/app'
import { countEmail, sentAndSending } from '../../helpers/campaign'
import { allChannels, recordingProvider } from '../../helpers/sender'

// The sending-health check after bounces and complaints, debounced per client on the injected
// clock: a burst runs it once at its first event; the rest wait for the `deliverability.health`
// job, which runs it once the interval is over, so the burst's last complaint still pauses the
// campaigns. Another client is not held back by the first one's interval. A new process (the
// marks of a killed one are gone) checks every client with a recent bounce or complaint.

const clock = { t: Date.parse('2026-11-23T10:00:30.000Z'), now: () => clock.t }
const t = await createTestApp({ clock })
registerJobs(t.ctx)
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(recordingProvider()) })
const healthJob = (ctx = t.ctx) => ctx.jobs.runNow('deliverability.health')

/** Sends counted an hour before the test's clock. */
const earlier = (clientId: string, d: { sent: number; bounced?: number }) =>
  countEmail(t, clientId, clock.t - 60 * 60_000, d)

async function alertsOf(app: TestApp, key: string) {
  return ((await app.call('GET', '/api/v1/deliverability/alerts', { key })).body.data as { kind: string }[])
    .map((a) => a.kind)
    .sort()
}

/** A client that sent a campaign (5 messages, 1,001 sends counted) and has a second one sending. */
const tenant = async (prefix: string) => await sentAndSending(t, worker, prefix, clock.t)

describe('the sending-health check, debounced per client', () => {
  test('a job run whose transaction rolled back leaves its checks pending for the next', async () => {
    const a = await tenant('rolled-back')
    for (const i of [0, 1, 2, 3]) {
      clock.t += 250
      await recordComplaint(t.ctx, a.msgs[i]!, clock.t)
    }
    clock.t += HEALTH_CHECK_INTERVAL_MS
    // The job's check ran (alert, pause) and its transaction then rolled back, taking them along.
    await expect(
      inTransaction(t.ctx.sqlite, async () => {
        expect(await runPendingHealthChecks(t.ctx)).toEqual({ checked: 1 })
        throw new Error('the job could not commit')
      }),
    ).rejects.toThrow('the job could not commit')
    expect(await alertsOf(t, a.key)).toEqual([])
    expect(healthChecksDue(t.ctx)).toBe(true)
    await healthJob()
    expect(await alertsOf(t, a.key)).toEqual(['campaigns_paused', 'complaint_rate'])
    expect(await a.secondStatus()).toBe('paused')
  })

  test('a burst of complaints: checked at the first, the rest by the job after the interval, which pauses', async () => {
    const a = await tenant('burst')
    // Four complaints in one second: 0.4 % of 1,001 sends, over the 0.3 % that pauses.
    for (const i of [0, 1, 2, 3]) {
      clock.t += 250
      await recordComplaint(t.ctx, a.msgs[i]!, clock.t)
    }
    // Only the first (0.1 %… just under) was checked: no alert, nothing paused yet.
    expect(await alertsOf(t, a.key)).toEqual([])
    expect(await a.secondStatus()).toBe('sending')
    // The job inside the interval leaves it.
    await healthJob()
    expect(await alertsOf(t, a.key)).toEqual([])
    // Once the interval is over, the job runs the check once: alert and pause.
    clock.t += HEALTH_CHECK_INTERVAL_MS
    await healthJob()
    expect(await alertsOf(t, a.key)).toEqual(['campaigns_paused', 'complaint_rate'])
    expect(await a.secondStatus()).toBe('paused')
    // Nothing left pending: a second run changes nothing (no second pause record).
    clock.t += HEALTH_CHECK_INTERVAL_MS
    await healthJob()
    expect(await alertsOf(t, a.key)).toEqual(['campaigns_paused', 'complaint_rate'])
  })

  test('a bounce after the interval is checked at once; another client is not held back by this one', async () => {
    const b = await tenant('solo')
    const c = await tenant('other')
    await earlier(b.clientId, { sent: 0, bounced: 19 })
    await earlier(c.clientId, { sent: 0, bounced: 20 })
    const bounce = { type: 'hard' as const, statusCode: '5.1.1', diagnostic: 'no such user' }
    await recordBounce(t.ctx, b.msgs[0]!, bounce, clock.t) // 20 in 1,001: 1.998 %, under 2 %
    expect(await alertsOf(t, b.key)).toEqual([])
    clock.t += HEALTH_CHECK_INTERVAL_MS
    await recordBounce(t.ctx, b.msgs[1]!, bounce, clock.t) // 21 in 1,001, the interval over: checked now
    expect(await alertsOf(t, b.key)).toEqual(['bounce_rate'])
    clock.t += 10
    await recordBounce(t.ctx, c.msgs[0]!, bounce, clock.t) // the other client, within b's interval: 21 in 1,001
    expect(await alertsOf(t, c.key)).toEqual(['bounce_rate'])
  })

  test('a new process checks the clients with a recent bounce or complaint at its first job run', async () => {
    const d = await tenant('killed')
    // A burst whose put-off check never ran: the process dies before the job.
    for (const i of [0, 1, 2, 3]) await recordComplaint(t.ctx, d.msgs[i]!, clock.t)
    expect(await alertsOf(t, d.key)).toEqual([])
    // The same store: the app's PostgreSQL database when the run is on PostgreSQL.
    const url = t.ctx.config.databaseUrl
    const restarted = await createAppContext(
      loadConfig(
        { data: t.dataDir },
        {
          HERALD_PUBLIC_URL: 'http://localhost:8080',
          ...(url ? { HERALD_DATABASE_URL: url } : {}),
        },
      ),
      {
        log: silentLogger,
        clock,
      },
    )
    registerJobs(restarted)
    await healthJob(restarted)
    expect(await alertsOf(t, d.key)).toEqual(['campaigns_paused', 'complaint_rate'])
    expect(await d.secondStatus()).toBe('paused')
    if (url) await restarted.store.close()
    else restarted.sqlite.close()
  })
})
