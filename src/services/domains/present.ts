import type { Config } from '../../config'
import type { CheckResult, DomainRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'
import { warmupOn } from '../deliverability/warmup'
import { dnsRecords } from './records'

/** Where a warming domain stands today (warmup.ts reads it). */
export interface WarmupProgress {
  started_at: string
  day: number
  daily_cap: number
  sent_today: number
}

const check = (c: CheckResult) => ({
  verified: c.outcome === 'pass',
  outcome: c.outcome,
  message: c.message,
  found: c.found,
})

/** `progress`: where its warm-up stands today, null when it is off, not started or over. */
export function presentDomain(
  row: DomainRow,
  config: Pick<Config, 'spfInclude' | 'sendingIp' | 'warmup'>,
  progress: WarmupProgress | null,
) {
  return {
    id: row.id,
    client_id: row.clientId,
    domain: row.domain,
    status: row.status,
    verified: row.dkimVerified && row.spfVerified,
    dkim_verified: row.dkimVerified,
    spf_verified: row.spfVerified,
    dmarc_verified: row.dmarcVerified,
    dkim_selector: row.dkimSelector,
    dns_records: dnsRecords(row, config),
    verification: row.checks
      ? {
          checked_at: iso(row.checks.checked_at),
          dkim: check(row.checks.dkim),
          spf: check(row.checks.spf),
          dmarc: check(row.checks.dmarc),
        }
      : null,
    warmup: warmupOn(config, row.warmup),
    warmup_progress: progress,
    verified_at: isoOrNull(row.verifiedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type DomainView = ReturnType<typeof presentDomain>
