import { isIP } from 'node:net'
import type { Config } from '../../config'
import type { DomainRow } from '../../db/schema'
import { dkimRecordValue } from '../../lib/dkim-key'
import { splitTxt } from '../../lib/dns-txt'

export interface DnsRecord {
  purpose: 'dkim' | 'spf' | 'dmarc'
  type: 'TXT'
  name: string
  /** The whole record text. */
  value: string
  /** DKIM only: the ≤255-character strings of the record, for zone files. */
  value_parts?: string[]
}

type SpfSettings = Pick<Config, 'spfInclude' | 'sendingIp'>

/** The SPF mechanism the domain must carry, or null when neither setting is configured. */
export function spfMechanism(config: SpfSettings): string | null {
  if (config.spfInclude) return `include:${config.spfInclude}`
  if (config.sendingIp) return `${isIP(config.sendingIp) === 6 ? 'ip6' : 'ip4'}:${config.sendingIp}`
  return null
}

export const dkimName = (row: Pick<DomainRow, 'dkimSelector' | 'domain'>) =>
  `${row.dkimSelector}._domainkey.${row.domain}`
export const dmarcName = (domain: string) => `_dmarc.${domain}`

export function spfValue(config: SpfSettings): string {
  const mechanism = spfMechanism(config)
  return mechanism ? `v=spf1 ${mechanism} ~all` : 'v=spf1 a mx ~all'
}

export const dmarcValue = (domain: string) => `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`

/** The records a user publishes for the domain (DKIM, SPF, DMARC), each value the whole record text. */
export function dnsRecords(row: DomainRow, config: SpfSettings): DnsRecord[] {
  const dkim = dkimRecordValue(row.dkimPublicKey)
  return [
    { purpose: 'dkim', type: 'TXT', name: dkimName(row), value: dkim, value_parts: splitTxt(dkim) },
    { purpose: 'spf', type: 'TXT', name: row.domain, value: spfValue(config) },
    { purpose: 'dmarc', type: 'TXT', name: dmarcName(row.domain), value: dmarcValue(row.domain) },
  ]
}
