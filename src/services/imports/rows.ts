import { validate } from '../../lib/validate'
import { CreateContactInput } from '../contacts/inputs'
import { contactFieldErrors, isEmail, isTimeZone, normalizePhone } from '../contacts/normalize'
import type { ColumnTarget, ContactColumn } from './columns'

// One CSV row: read by its header's columns, then checked by the rules of the JSON API
// (normalize.ts, the contact input schema). No database: this runs on the import's parse
// worker (parse-worker.ts), off the thread that writes.

const INPUT_STATUSES = new Set(['subscribed', 'unsubscribed', 'blocked'])

export type Parsed = Partial<Record<ContactColumn, string>> & { custom: Record<string, string> }

export function readRow(record: string[], columns: ColumnTarget[]): Parsed {
  const out: Parsed = { custom: {} }
  for (let i = 0; i < columns.length; i++) {
    const value = record[i]
    if (value === undefined || value === '') continue
    const c = columns[i]!
    if (c.kind === 'field') out[c.field] = value
    else if (c.kind === 'custom') out.custom[c.key] = value
  }
  return out
}

/**
 * A cell quoted into a row's error: its first `max` characters as a JSON string, so a control
 * character or half a surrogate pair shows escaped (and can be stored: PostgreSQL refuses
 * U+0000 and lone surrogates in JSON) instead of breaking the job's error list.
 */
const quoted = (cell: string, max: number) => JSON.stringify(cell.slice(0, max))

/**
 * Why a row cannot be imported, or null; normalises it in place (phone to E.164, status to
 * lower case; a phone's leading apostrophe, a spreadsheet's text mark, is dropped). Same rules as the API: a phone the API would refuse (not a valid number with its
 * country code) refuses the row, as `POST /contacts` refuses the contact.
 */
export function rowProblem(row: Parsed): string | null {
  if (!row.email) return 'email is missing'
  if (!isEmail(row.email)) return `email ${quoted(row.email, 80)} is not a valid address`
  if (row.phone !== undefined) {
    // A spreadsheet-safe export (ours among them) writes +44… as '+44…; the apostrophe only
    // marks the cell as text.
    const phone = normalizePhone(row.phone.startsWith("'") ? row.phone.slice(1) : row.phone)
    if (phone === null) return `phone ${quoted(row.phone, 40)} is not a phone number (use +<country code>…)`
    row.phone = phone
  }
  if (row.timezone !== undefined && !isTimeZone(row.timezone))
    return `timezone ${quoted(row.timezone, 40)} is not an IANA time zone`
  if (row.status !== undefined) {
    row.status = row.status.toLowerCase()
    if (!INPUT_STATUSES.has(row.status))
      return `status ${quoted(row.status, 20)} must be subscribed, unsubscribed or blocked`
  }
  // Every other limit of the JSON API: the same schema and member checks.
  return contactProblem(row, row.custom)
}

/**
 * What the API would refuse in a contact as imported (lengths, control characters, custom
 * fields), or null. The phone is the normalised one (rowProblem checked it): only its length
 * and characters are checked again, not parsed twice.
 */
export function contactProblem(row: Parsed, custom: Record<string, unknown>): string | null {
  const contact = {
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    company: row.company,
    phone: row.phone,
    timezone: row.timezone,
    status: row.status,
    custom_fields: custom,
  }
  const errors = [
    ...validate(CreateContactInput, contact, 'row'),
    ...contactFieldErrors({ ...contact, phone: undefined }),
  ]
  if (errors.length === 0) return null
  const first = errors.slice(0, 3).map((e) => `${e.field}: ${e.message}`)
  return errors.length > 3 ? `${first.join('; ')}; and ${errors.length - 3} more` : first.join('; ')
}
