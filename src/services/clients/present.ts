import type { ClientRow } from '../../db/schema'
import { iso } from '../../lib/time'

export function presentClient(row: ClientRow) {
  return {
    id: row.id,
    client_id: row.id,
    name: row.name,
    industry: row.industry,
    status: row.status,
    timezone: row.timezone,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type ClientView = ReturnType<typeof presentClient>
