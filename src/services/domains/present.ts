import type { Config } from '../../config'
import type { CheckResult, DomainRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'
import { dnsRecords } from './records'

const check = (c: CheckResult) => ({
  verified: c.outcome === 'pass',
  outcome: c.outcome,
  message: c.message,
  found: c.found,
})

export function presentDomain(row: DomainRow, config: Pick<Config, 'spfInclude' | 'sendingIp'>) {
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
    verified_at: isoOrNull(row.verifiedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type DomainView = ReturnType<typeof presentDomain>
