// How a CSV header row maps to contact fields. Unknown columns become custom fields; the
// bookkeeping columns of our own export are ignored so an export re-imports cleanly.

export type ContactColumn = 'email' | 'first_name' | 'last_name' | 'company' | 'phone' | 'status' | 'timezone'

const ALIASES: Record<string, ContactColumn> = {
  email: 'email',
  email_address: 'email',
  e_mail: 'email',
  first_name: 'first_name',
  firstname: 'first_name',
  given_name: 'first_name',
  last_name: 'last_name',
  lastname: 'last_name',
  surname: 'last_name',
  family_name: 'last_name',
  company: 'company',
  organization: 'company',
  organisation: 'company',
  phone: 'phone',
  phone_number: 'phone',
  mobile: 'phone',
  status: 'status',
  timezone: 'timezone',
  time_zone: 'timezone',
}
const IGNORED = new Set(['id', 'client_id', 'created_at', 'updated_at'])

export type ColumnTarget =
  | { kind: 'field'; field: ContactColumn }
  | { kind: 'custom'; key: string }
  | { kind: 'ignore' }

export function mapHeader(header: string[]): ColumnTarget[] {
  return header.map((raw) => {
    const name = raw.trim()
    const key = name.toLowerCase().replace(/[\s-]+/g, '_')
    if (IGNORED.has(key)) return { kind: 'ignore' }
    const field = ALIASES[key]
    if (field) return { kind: 'field', field }
    if (name === '') return { kind: 'ignore' }
    // Not shortened: a key over 64 characters is refused in each row that sets it, as the API refuses it.
    return { kind: 'custom', key: name.startsWith('custom.') ? name.slice(7) : name }
  })
}

/** Picks `,` `;` or tab: whichever occurs most in the first line outside quotes. */
export function detectDelimiter(sample: string): string {
  const firstLine = sample.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 }
  let quoted = false
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted
    else if (!quoted && ch in counts) counts[ch]!++
  }
  const [best, n] = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]!
  return n > 0 ? best : ','
}
