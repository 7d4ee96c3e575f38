import type { FieldError } from '../../errors'
import type { ContactInput } from '../contacts/inputs'
import { CUSTOM_VALUE_MAX, isEmail, normalizePhone } from '../contacts/normalize'

// What a person posted to a form, read against the fields the form asks for: members it does not
// ask for are ignored (a site's embed may carry its own hidden inputs), the asked ones checked.

const TEXT_MAX = 200

export interface Submission {
  email: string
  /** The honeypot `hp` was filled in: a bot. */
  honeypot: boolean
  /** The contact as the contacts verb takes it. */
  contact: ContactInput
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '')

// What the API refuses in any string: C0 and C1 controls and DEL (a form's inputs are one line),
// and an unpaired surrogate. A browser sends none of them; a crafted POST may, and U+0000 or an
// unpaired surrogate in a custom field would fail PostgreSQL's write.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const textProblem = (v: string) =>
  CONTROL.test(v)
    ? 'must not contain control characters'
    : v.isWellFormed()
      ? null
      : 'must be valid Unicode (it holds an unpaired surrogate)'

/** The submission's values as the page shows them again after an error. */
export function echoValues(fields: readonly string[], body: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f, text(body[f]).slice(0, 254)]))
}

export function readSubmission(
  fields: readonly string[],
  body: Record<string, unknown>,
  errors: FieldError[],
): Submission {
  const email = text(body.email)
  if (email === '') errors.push({ field: 'email', message: 'is required' })
  else if (!isEmail(email) || textProblem(email))
    errors.push({ field: 'email', message: 'must be a valid email address' })
  const contact: ContactInput = { email }
  const custom: Record<string, string> = {}
  for (const field of fields) {
    const value = text(body[field])
    if (field === 'email' || value === '') continue
    const problem = textProblem(value)
    if (problem) errors.push({ field, message: problem })
    else if (field.startsWith('custom.')) {
      if (value.length > CUSTOM_VALUE_MAX)
        errors.push({ field, message: `must be at most ${CUSTOM_VALUE_MAX} characters` })
      custom[field.slice('custom.'.length)] = value
    } else if (value.length > TEXT_MAX)
      errors.push({ field, message: `must be at most ${TEXT_MAX} characters` })
    else if (field === 'phone') {
      if (normalizePhone(value) === null)
        errors.push({ field, message: 'is not a phone number; use international format, e.g. +14155550100' })
      contact.phone = value
    } else contact[field as 'first_name' | 'last_name' | 'company'] = value
  }
  if (Object.keys(custom).length > 0) contact.custom_fields = custom
  return { email, honeypot: text(body.hp) !== '', contact }
}
