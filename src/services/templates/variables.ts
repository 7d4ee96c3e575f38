import type { ClientRow, ContactRow } from '../../db/schema'
import { iso } from '../../lib/time'

// What a template sees: `contact.*` (with `contact.custom.*`), `client.*`, `campaign.*` and
// `unsubscribe_url`. The campaign engine builds the same shapes per recipient.

export function contactVariables(row: ContactRow): Record<string, unknown> {
  return {
    id: row.id,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    company: row.company,
    phone: row.phone,
    status: row.status,
    timezone: row.timezone,
    custom: row.customFields ?? {},
    created_at: iso(row.createdAt),
  }
}

export function clientVariables(row: Pick<ClientRow, 'id' | 'name' | 'industry'>): Record<string, unknown> {
  return { id: row.id, name: row.name, industry: row.industry }
}
