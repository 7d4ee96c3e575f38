import type { ClientRow, ContactRow } from '../../db/schema'
import { iso } from '../../lib/time'

// What a template sees: `contact.*` (with `contact.custom.*`), `client.*` (with `client.footer.*`),
// `campaign.*`, `unsubscribe_url` and `preferences_url`. The campaign engine builds the same shapes
// per recipient.

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

/** `client.*`: the client, and `client.footer.{company, postal_address}` for CAN-SPAM footers. */
export function clientVariables(
  row: Pick<ClientRow, 'id' | 'name' | 'industry'>,
  footer: { company: string | null; postal_address: string | null },
): Record<string, unknown> {
  return { id: row.id, name: row.name, industry: row.industry, footer }
}
