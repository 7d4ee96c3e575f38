import type { ApiKeyRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'

/** Never includes the key or its hash: only the display prefix. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    tier: row.tier,
    created_at: iso(row.createdAt),
    last_used_at: isoOrNull(row.lastUsedAt),
    expires_at: isoOrNull(row.expiresAt),
    revoked_at: isoOrNull(row.revokedAt),
    agent: row.agent,
  }
}
