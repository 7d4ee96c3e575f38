import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { domains, type SenderRow } from '../../db/schema'
import { iso } from '../../lib/time'
import { domainCandidates } from '../domains/names'

/** Verified domains (DKIM and SPF) of one client, by name, for the senders being presented. */
export async function verifiedDomainsFor(db: Db, rows: readonly SenderRow[]): Promise<Map<string, string>> {
  const byKey = new Map<string, string>()
  const names = [...new Set(rows.flatMap((r) => domainCandidates(r.fromEmail)))]
  const clientIds = [...new Set(rows.map((r) => r.clientId))]
  if (names.length === 0) return byKey
  const found = await db
    .select({ id: domains.id, clientId: domains.clientId, domain: domains.domain })
    .from(domains)
    .where(
      and(
        inArray(domains.clientId, clientIds),
        inArray(domains.domain, names),
        eq(domains.dkimVerified, true),
        eq(domains.spfVerified, true),
      ),
    )
  for (const d of found) byKey.set(`${d.clientId} ${d.domain}`, d.id)
  return byKey
}

/** `verified`: the client has a verified domain for the address (or a parent of its domain). */
export function presentSender(row: SenderRow, verified: Map<string, string>) {
  const domainId =
    domainCandidates(row.fromEmail)
      .map((d) => verified.get(`${row.clientId} ${d}`))
      .find((id) => id !== undefined) ?? null
  return {
    id: row.id,
    client_id: row.clientId,
    from_email: row.fromEmail,
    from_name: row.fromName,
    reply_to: row.replyTo,
    verified: domainId !== null,
    domain_id: domainId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type SenderView = ReturnType<typeof presentSender>

export const presentOne = async (db: Db, row: SenderRow) =>
  presentSender(row, await verifiedDomainsFor(db, [row]))
