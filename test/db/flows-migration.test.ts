import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import type { OutgoingEmail } from '../../src/channels/types'
import { loadConfig } from '../../src/config'
import { createAppContext } from '../../src/create-context'
import { silentLogger } from '../../src/lib/log'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createFlowWorker } from '../../src/services/flows/worker'
import { testClock } from '../helpers/journey'
import { allChannels, recordingProvider } from '../helpers/sender'

// A data file written by the binary before journeys and sequences became one flow engine, killed
// while every run waited on a future step (test/fixtures/pre-flows, README there). Opened by this
// build it migrates forward: every read the API answered before the kill answers the same, and
// the runs carry on from where they waited (the sequence's next email continues its thread).

const FIXTURE = join(import.meta.dir, '../fixtures/pre-flows')
const expected = await Bun.file(join(FIXTURE, 'expected.json')).json()
const dir = mkdtempSync(join(tmpdir(), 'herald-pre-flows-'))
copyFileSync(join(FIXTURE, 'herald.db'), join(dir, 'herald.db'))
copyFileSync(join(FIXTURE, 'secret.key'), join(dir, 'secret.key'))

const clock = testClock(expected.killed_at)
const ctx = await createAppContext(loadConfig({ data: dir }, {}), { clock, log: silentLogger })
const app = createApp(ctx)
afterAll(async () => {
  await ctx.store.close()
  rmSync(dir, { recursive: true, force: true })
})

async function get(path: string) {
  const res = await app.handle(
    new Request(`http://localhost:8080${path}`, {
      headers: { authorization: `Bearer ${expected.api_keys.admin.key}` },
    }),
  )
  expect(res.status).toBe(200)
  return (await res.json()) as { data: unknown; pagination?: { total: number; has_more: boolean } }
}

/** Every page, as the fixture's script read them. */
async function allPages(path: string) {
  const sep = path.includes('?') ? '&' : '?'
  const page = await get(`${path}${sep}limit=200`)
  expect(page.pagination!.has_more).toBe(false)
  return { total: page.pagination!.total, data: page.data }
}

const { journeys, sequences } = expected.ids as {
  journeys: Record<'A' | 'B', string>
  sequences: Record<'S' | 'T', string>
}

describe('every read answers as before the upgrade', () => {
  for (const name of ['A', 'B'] as const)
    test(`journey ${name}: the journey, its enrollments, stats and messages`, async () => {
      const id = journeys[name]
      const before = expected.api.journeys[name]
      expect((await get(`/api/v1/journeys/${id}`)).data).toEqual(before.journey)
      expect(await allPages(`/api/v1/journeys/${id}/enrollments`)).toEqual(before.enrollments)
      expect((await get(`/api/v1/journeys/${id}/stats`)).data).toEqual(before.stats)
      expect(await allPages(`/api/v1/messages?journey_id=${id}`)).toEqual(before.messages)
    })
  for (const name of ['S', 'T'] as const)
    test(`sequence ${name}: the sequence, its runs and messages`, async () => {
      const id = sequences[name]
      const before = expected.api.sequences[name]
      expect((await get(`/api/v1/sequences/${id}`)).data).toEqual(before.sequence)
      expect(await allPages(`/api/v1/sequences/${id}/enrollments`)).toEqual(before.enrollments)
      expect(await allPages(`/api/v1/messages?sequence_id=${id}`)).toEqual(before.messages)
    })
})

describe('the runs carry on from where they waited', () => {
  const provider = recordingProvider()
  const flows = createFlowWorker(ctx)
  const sender = createSendWorker(ctx, sendDeps, { providers: allChannels(provider), pollMs: 10 })
  beforeAll(async () => {
    // Three days on: A's hour, B's day and S's two days are over; S's third step (three days
    // after its second) is not.
    clock.t = Date.parse(expected.killed_at) + 3 * 86_400_000
    for (let i = 0; i < 5; i++) {
      await flows.drain()
      await sender.drain()
    }
  })
  type Enrollment = Record<string, unknown> & { status: string; contact_id: string }
  const runs = async (kind: 'journeys' | 'sequences', id: string) =>
    (await allPages(`/api/v1/${kind}/${id}/enrollments`)).data as Enrollment[]

  test('journey A: nobody opened, so each run sent the nudge and completed', async () => {
    const after = await runs('journeys', journeys.A)
    expect(after).toHaveLength(10)
    for (const e of after) {
      expect(e).toMatchObject({ status: 'completed', current_node: 'x', exit_reason: null })
      expect((e.history as { node: string }[]).map((h) => h.node)).toEqual(['t', 's1', 'w1', 'c1', 's2', 'x'])
    }
    expect((await allPages(`/api/v1/messages?journey_id=${journeys.A}`)).total).toBe(20)
  })

  test('journey B: the wait for an open timed out, so the nudge went and the run completed', async () => {
    const [e] = await runs('journeys', journeys.B)
    expect(e).toMatchObject({ status: 'completed', current_node: 'x' })
    expect(
      (e!.history as { node: string; result?: string }[]).find((h) => h.node === 'we' && h.result),
    ).toMatchObject({
      result: 'timeout',
    })
  })

  test("sequence S: each active run's second email replies in its thread; the stopped run stays stopped", async () => {
    const before = expected.api.sequences.S.enrollments.data as Enrollment[]
    const after = new Map((await runs('sequences', sequences.S)).map((e) => [e.contact_id, e]))
    const firstEmails = new Map(
      (expected.api.sequences.S.messages.data as { contact_id: string; message_id: string }[]).map((m) => [
        m.contact_id,
        m.message_id,
      ]),
    )
    let continued = 0
    for (const b of before) {
      const a = after.get(b.contact_id)!
      if (b.status !== 'active') {
        expect(a).toEqual(b)
        continue
      }
      expect(a).toMatchObject({ status: 'active', current_step: 1 })
      const history = a.history as { step: number; message_id: string }[]
      expect(history.map((h) => h.step)).toEqual([0, 1])
      const sent = provider.sent.find((m) => m.id === history[1]!.message_id) as OutgoingEmail
      expect(sent.subject).toMatch(/^Re: /)
      expect(sent.headers?.['In-Reply-To']).toBe(firstEmails.get(b.contact_id))
      continued++
    }
    expect(continued).toBe(11)
  })

  test('sequence T is paused: its runs still wait, and go on once it is activated again', async () => {
    const before = expected.api.sequences.T.enrollments.data as Enrollment[]
    expect(await runs('sequences', sequences.T)).toEqual(before)
    const res = await app.handle(
      new Request(`http://localhost:8080/api/v1/sequences/${sequences.T}/activate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${expected.api_keys.admin.key}` },
      }),
    )
    expect(res.status).toBe(200)
    for (let i = 0; i < 3; i++) {
      await flows.drain()
      await sender.drain()
    }
    const after = await runs('sequences', sequences.T)
    expect(after.every((e) => e.status === 'completed')).toBe(true)
    expect((await allPages(`/api/v1/messages?sequence_id=${sequences.T}`)).total).toBe(3 + 9)
  })
})
