import { eq, inArray } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { type CheckResult, type DomainChecks, type DomainRow, domains } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { notFound } from '../../errors'
import { afterCommit } from '../../lib/after-transaction'
import { dkimRecordValue } from '../../lib/dkim-key'
import { checkDkim, checkDmarc, checkSpf } from './checks'
import { createTxtResolver, type TxtResolver } from './dns'
import { findDomainRow } from './read'
import { dkimName, dmarcName, dmarcValue, spfMechanism, spfValue } from './records'
import { presentWithProgress } from './warmup'

/** The three DNS checks, run concurrently. */
export async function runChecks(
  app: AppContext,
  row: DomainRow,
  resolver: TxtResolver,
): Promise<DomainChecks> {
  const [dkim, spf, dmarc] = await Promise.all([
    resolver.lookup(dkimName(row), true),
    resolver.lookup(row.domain, false),
    resolver.lookup(dmarcName(row.domain), true),
  ])
  return {
    checked_at: app.clock.now(),
    dkim: checkDkim(dkim, dkimName(row), row.dkimPublicKey, dkimRecordValue(row.dkimPublicKey)),
    spf: checkSpf(spf, row.domain, spfMechanism(app.config), spfValue(app.config)),
    dmarc: checkDmarc(dmarc, dmarcName(row.domain), dmarcValue(row.domain)),
  }
}

/** A look-up error keeps what was known; pass and fail replace it. */
const settle = (c: CheckResult, previous: boolean) =>
  c.outcome === 'error' ? previous : c.outcome === 'pass'

/**
 * Writes the outcome. A domain is verified when DKIM and SPF pass (DMARC is reported, not
 * required); one that was verified before and no longer is becomes `broken`.
 * Returns the updated row, or null when the domain was deleted meanwhile.
 */
export async function applyChecks(
  app: AppContext,
  id: string,
  checks: DomainChecks,
): Promise<DomainRow | null> {
  return await inTransaction(app.sqlite, async () => {
    const row = (await app.db.select().from(domains).where(eq(domains.id, id)).limit(1))[0]
    if (!row) return null
    const dkimVerified = settle(checks.dkim, row.dkimVerified)
    const spfVerified = settle(checks.spf, row.spfVerified)
    const verified = dkimVerified && spfVerified
    const now = app.clock.now()
    return (
      await app.db
        .update(domains)
        .set({
          dkimVerified,
          spfVerified,
          dmarcVerified: settle(checks.dmarc, row.dmarcVerified),
          status: verified ? 'verified' : row.verifiedAt !== null ? 'broken' : 'pending',
          verifiedAt: verified ? now : row.verifiedAt,
          checks,
          updatedAt: now,
        })
        .where(eq(domains.id, id))
        .returning()
    )[0]!
  })
}

export interface LookedUp {
  id: string
  checks: DomainChecks
}

/** domains.verify, the I/O: real DNS look-ups through HERALD_DNS_SERVERS (else the system's). */
export async function lookUpDomain(ctx: Ctx, id: string): Promise<LookedUp> {
  const row = await findDomainRow(ctx, id)
  return { id: row.id, checks: await runChecks(ctx, row, createTxtResolver(ctx.config.dnsServers)) }
}

/** domains.verify, the write: the outcome of the look-ups. */
export async function recordChecks(ctx: Ctx, { id, checks }: LookedUp) {
  const updated = await applyChecks(ctx, id, checks)
  if (!updated) throw notFound('Domain')
  return await presentWithProgress(ctx, updated)
}

/** What the daily re-check looked up: each verified (or broken) domain with its fresh checks. */
export interface Rechecked {
  rows: DomainRow[]
  checks: Map<string, DomainChecks>
}

/**
 * domains.reverify, the I/O: every domain that is (or was) verified, looked up again a few at a
 * time.
 */
export async function recheckDomains(app: AppContext, concurrency = 4): Promise<Rechecked> {
  const rows = await app.db
    .select()
    .from(domains)
    .where(inArray(domains.status, ['verified', 'broken']))
  const resolver = createTxtResolver(app.config.dnsServers)
  const checks = new Map<string, DomainChecks>()
  let next = 0
  const worker = async () => {
    for (let row = rows[next++]; row; row = rows[next++])
      checks.set(row.id, await runChecks(app, row, resolver))
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker))
  return { rows, checks }
}

/** domains.reverify, the write: the outcomes, and the domains that broke or recovered. */
export async function applyRechecks(app: AppContext, { rows, checks }: Rechecked) {
  const summary = { checked: 0, broken: [] as string[], recovered: [] as string[] }
  for (const row of rows) {
    const updated = await applyChecks(app, row.id, checks.get(row.id)!)
    summary.checked++
    if (!updated) continue
    if (updated.status === 'broken' && row.status === 'verified') {
      summary.broken.push(updated.domain)
      afterCommit(() =>
        app.log.warn('domain verification broke', {
          domain_id: updated.id,
          client_id: updated.clientId,
          domain: updated.domain,
          dkim: updated.checks?.dkim.message,
          spf: updated.checks?.spf.message,
        }),
      )
    } else if (updated.status === 'verified' && row.status === 'broken')
      summary.recovered.push(updated.domain)
  }
  return summary
}
