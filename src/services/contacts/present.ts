import type { ContactRow } from '../../db/schema'
import { iso } from '../../lib/time'

export function presentContact(row: ContactRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    company: row.company,
    phone: row.phone,
    status: row.status,
    sms_opt_out: row.smsOptOut,
    timezone: row.timezone,
    custom_fields: row.customFields,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type ContactView = ReturnType<typeof presentContact>
