import { describe, expect, test } from 'bun:test'
import { withActor } from '../../../src/context'
import { oauthUsedAssertions } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { systemActor } from '../../../src/services/actors/actor'
import type { IdJag } from '../../../src/services/agents/id-jag'
import { spendIdJag } from '../../../src/services/agents/id-jag-replay'
import { PURGE_CHUNK, purgeExpiredOAuth } from '../../../src/services/oauth/purge'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'

// Spent ID-JAG jtis (the replay store) are kept while their assertion could still verify — its
// exp plus the verifier's 30 s tolerance — and the hourly oauth.purge job deletes them after
// that, on the injected clock: one millisecond before, still there; at the moment, gone.

const clock = testClock()
const t = await createTestApp({ clock })
registerJobs(t.ctx)
const purge = () => t.ctx.jobs.runNow('oauth.purge')
const system = withActor(t.ctx, systemActor('test'), 'test')
const TOLERANCE_MS = 30_000

const jag = (jti: string, expiresAt: number, issuer = 'https://idp.example.test'): IdJag => ({
  issuer,
  subject: 'user-42',
  clientId: null,
  scopes: null,
  audTenant: null,
  email: null,
  jti,
  expiresAt,
  claims: {},
})
const spend = async (j: IdJag) =>
  await inTransaction(t.ctx.sqlite, async () => await spendIdJag(t.ctx.db, j, clock.t))
const stored = async () => (await t.ctx.db.select().from(oauthUsedAssertions)).map((r) => r.jti).sort()

describe('oauth.purge and the spent-assertion store', () => {
  test('a row goes once its assertion expired (exp + tolerance), not a millisecond before; live rows stay', async () => {
    const start = clock.t
    expect(await spend(jag('short', start + 60_000))).toBe(true)
    expect(await spend(jag('long', start + 600_000))).toBe(true)
    await purge()
    expect(await stored()).toEqual(['long', 'short'])

    clock.t = start + 60_000 + TOLERANCE_MS - 1
    await purge()
    expect(await stored()).toEqual(['long', 'short'])
    // Still spent: a replay within the window is refused.
    expect(await spend(jag('short', start + 60_000))).toBe(false)

    clock.t = start + 60_000 + TOLERANCE_MS
    expect((await purgeExpiredOAuth(system)).used_assertions).toBe(0)
    clock.t += 1
    expect((await purgeExpiredOAuth(system)).used_assertions).toBe(1)
    expect(await stored()).toEqual(['long'])
    // Gone, and so the jti may be spent again by a new assertion.
    expect(await spend(jag('short', clock.t + 60_000))).toBe(true)
    clock.t = start + 3_600_000
    await purge()
    expect(await stored()).toEqual([])
  })

  test('a backlog over one chunk goes in one run of the job', async () => {
    const expiry = clock.t + 60_000
    await inTransaction(t.ctx.sqlite, async () => {
      for (let i = 0; i < PURGE_CHUNK + 5; i++)
        await spendIdJag(t.ctx.db, jag(`bulk-${i}`, expiry, 'https://bulk.example.test'), clock.t)
    })
    expect((await stored()).length).toBe(PURGE_CHUNK + 5)
    clock.t = expiry + TOLERANCE_MS + 1
    await purge()
    expect(await stored()).toEqual([])
  })
})
