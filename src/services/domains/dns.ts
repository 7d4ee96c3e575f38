import { Resolver } from 'node:dns/promises'
import { joinTxt } from '../../lib/dns-txt'
import type { Lookup } from './checks'

const MISSING = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME'])

export interface TxtResolver {
  /** TXT records at `name`, each record's strings joined. */
  lookup(name: string, dedicated: boolean): Promise<Lookup>
}

/** `HERALD_DNS_SERVERS` when configured, else the system resolver. Time-boxed: 3 s × 2 tries. */
export function createTxtResolver(servers: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 })
  if (servers.length > 0) resolver.setServers([...servers])
  return {
    async lookup(name, dedicated) {
      try {
        const records = joinTxt(await resolver.resolveTxt(name), dedicated)
        return { kind: 'found', records }
      } catch (err) {
        const code = String((err as NodeJS.ErrnoException).code ?? 'EUNKNOWN')
        return MISSING.has(code) ? { kind: 'missing' } : { kind: 'error', code }
      }
    },
  }
}
