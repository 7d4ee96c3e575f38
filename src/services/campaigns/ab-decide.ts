import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { outboxOf } from '../../db/outbox'
import { type AbDecision, type CampaignRow, campaigns, campaignVariantCounts } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { invalidField, invalidState } from '../../errors'
import { afterCommit } from '../../lib/after-transaction'
import { setNextDecision } from './ab-schedule'
import { decidesAt, presentAbTestState, variantIndex } from './ab-test'
import { findCampaignRow } from './records'
import { OUTBOX_RULES, SENDING } from './states'

// The end of an A/B test: the figures of each variant, the winner (the best rate of the test's
// metric, machine opens left out, ties to the first variant), and the rest of the audience
// released with it — all in one transaction, so a crash decides either not at all or once.

const SENT = 'sent'

export type VariantFigures = AbDecision['figures'][number]

const rate = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 10_000) / 10_000 : 0)

/** Each variant's figures now, in variant order (rates are fractions of delivered, as in stats). */
export async function variantFigures(
  app: Pick<AppContext, 'db'>,
  c: CampaignRow,
): Promise<(VariantFigures & { delivered: number })[]> {
  const byVariant = new Map(
    (await app.db.select().from(campaignVariantCounts).where(eq(campaignVariantCounts.campaignId, c.id))).map(
      (r) => [r.variant, r],
    ),
  )
  return (c.variants ?? []).map((_, i) => {
    const r = byVariant.get(i)
    const f = {
      sent: r?.sent ?? 0,
      delivered: r?.delivered ?? 0,
      opened: r?.opened ?? 0,
      clicked: r?.clicked ?? 0,
    }
    return { ...f, open_rate: rate(f.opened, f.delivered), click_rate: rate(f.clicked, f.delivered) }
  })
}

/** The best variant by `metric`; the first of those tied. */
export function bestVariant(figures: readonly VariantFigures[], metric: 'open_rate' | 'click_rate'): number {
  let best = 0
  figures.forEach((f, i) => {
    if (f[metric] > figures[best]![metric]) best = i
  })
  return best
}

/**
 * Decides campaign `id`'s test: by its metric, or for `chosen` (an operator's pick). Nothing
 * happens when it is already decided, its test has not started, or it was paused, cancelled or
 * failed (a paused campaign is decided when it resumes). Answers the decision made, or null.
 */
export async function decide(
  app: AppContext,
  id: string,
  now: number,
  chosen?: number,
): Promise<AbDecision | null> {
  const decision = await inTransaction(app.sqlite, async () => {
    const c = (await app.db.select().from(campaigns).where(eq(campaigns.id, id)).limit(1))[0]
    if (!c || !c.abTest || !c.variants || c.abDecision || c.abStartedAt === null) return null
    // A paused test waits for its campaign to resume; a campaign whose whole audience was in the
    // test may be sent already and still gets its verdict.
    if (chosen === undefined && c.status !== SENDING && c.status !== SENT) return null
    const figures = (await variantFigures(app, c)).map(({ delivered: _, ...f }) => f)
    const d: AbDecision = {
      winner: chosen ?? bestVariant(figures, c.abTest.metric),
      decided_at: now,
      reason: chosen === undefined ? 'metric' : 'manual',
      figures,
    }
    // Undecided when the row is changed: the job in one process and an operator's pick in another
    // at the same moment decide once.
    const [undecided] = await app.db
      .update(campaigns)
      .set({ abDecision: d, updatedAt: now })
      .where(and(eq(campaigns.id, id), isNull(campaigns.abDecision)))
      .returning({ id: campaigns.id })
    if (!undecided) return null
    const released = await outboxOf(app.store, OUTBOX_RULES).releaseRest(id, d.winner, now)
    const winner = c.variants[d.winner]!.name
    afterCommit(() =>
      app.log.info('A/B test decided', {
        campaign_id: id,
        winner,
        reason: d.reason,
        released,
      }),
    )
    return d
  })
  if (decision) app.workers.wake('send')
  return decision
}

/** The decision job: every test whose time has come is decided; the next one is noted. */
export async function decideDueTests(app: AppContext): Promise<{ decided: number }> {
  const now = app.clock.now()
  const pending = await app.db
    .select()
    .from(campaigns)
    .where(
      and(
        isNotNull(campaigns.abStartedAt),
        isNull(campaigns.abDecision),
        inArray(campaigns.status, [SENDING, 'paused', SENT]),
      ),
    )
  let decided = 0
  let next: number | null = null
  for (const c of pending) {
    const at = decidesAt(c)!
    if (c.status === 'paused') continue
    if (at <= now) {
      if (await decide(app, c.id, now)) decided++
    } else next = next === null ? at : Math.min(next, at)
  }
  setNextDecision(app, next)
  return { decided }
}

/** An operator picks the winner before the test's time: the rest go out with it now. */
export async function pickWinner(ctx: Ctx, id: string, name: string) {
  const c = await findCampaignRow(ctx, id)
  if (!c.abTest || !c.variants) throw invalidState('this campaign has no A/B test', c.status, [])
  const index = variantIndex(c, name)
  if (index < 0)
    throw invalidField(
      'variant',
      `no variant named ${name}; one of: ${c.variants.map((v) => v.name).join(', ')}`,
    )
  if (c.abDecision)
    throw invalidState(
      `the test is already decided (${c.variants[c.abDecision.winner]!.name} won)`,
      c.status,
      [],
    )
  if (c.abStartedAt === null || ![SENDING, 'paused', SENT].includes(c.status))
    throw invalidState('the test has not started: launch the campaign first', c.status, [
      SENDING,
      'paused',
      SENT,
    ])
  await decide(ctx, id, ctx.clock.now(), index)
  return presentAbTestState(await findCampaignRow(ctx, id))!
}

/** A campaign's per-variant stats, with the winner marked and its figures at decision time. */
export async function variantStats(app: Pick<AppContext, 'db'>, c: CampaignRow) {
  if (!c.variants || !c.abTest) return null
  const figures = await variantFigures(app, c)
  return c.variants.map((v, i) => ({
    name: v.name,
    ...figures[i]!,
    winner: c.abDecision ? c.abDecision.winner === i : false,
    at_decision: c.abDecision ? c.abDecision.figures[i]! : null,
  }))
}
