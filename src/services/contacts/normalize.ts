import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import type { FieldError } from '../../errors'

// Field rules shared by the API and CSV import, so both accept and refuse the same values.

export const CUSTOM_FIELDS_MAX = 100
export const CUSTOM_KEY_MAX = 64
export const CUSTOM_VALUE_MAX = 2048

const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/

let zones: Set<string> | null = null
function timeZones(): Set<string> {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC'])
  return zones
}

/** An address we can send to: ≤ 254 characters, a local part of ≤ 64 (RFC 5321 §4.5.3.1.1). */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value) && value.lastIndexOf('@') <= 64
}

/**
 * E.164 for a valid phone number, or null. Every number goes through libphonenumber-js with
 * its full ("max") metadata, so the digits are checked against the country's numbering plan,
 * not only counted; the number must carry its country code (`+44 20 7946 0958`, any spacing,
 * dashes, dots or brackets). An E.164 input is checked the same way: `+` and digits alone
 * are not a phone number.
 */
export function normalizePhone(value: string): string | null {
  const parsed = parsePhoneNumberFromString(value.trim())
  return parsed?.isValid() ? parsed.number : null
}

export function isTimeZone(value: string): boolean {
  return timeZones().has(value)
}

let lowerZones: Set<string> | null = null
/** isTimeZone ignoring case: segment rules compare a contact's time zone case-insensitively. */
export function isTimeZoneIgnoringCase(value: string): boolean {
  lowerZones ??= new Set([...timeZones()].map((z) => z.toLowerCase()))
  return lowerZones.has(value.toLowerCase())
}

export function checkCustomFields(fields: Record<string, unknown>, path: string, errors: FieldError[]): void {
  const keys = Object.keys(fields)
  if (keys.length > CUSTOM_FIELDS_MAX)
    errors.push({
      field: path,
      message: `has ${keys.length} members; at most ${CUSTOM_FIELDS_MAX} are allowed`,
    })
  for (const key of keys) {
    if (key.length === 0 || key.length > CUSTOM_KEY_MAX)
      errors.push({ field: `${path}.${key}`, message: `key must be 1 to ${CUSTOM_KEY_MAX} characters` })
    const value = fields[key]
    if (value === undefined) continue
    if (Buffer.byteLength(JSON.stringify(value)) > CUSTOM_VALUE_MAX)
      errors.push({ field: `${path}.${key}`, message: `value is longer than ${CUSTOM_VALUE_MAX} bytes` })
  }
}

export interface ContactFieldsInput {
  email?: string
  phone?: string | null
  timezone?: string | null
}

/** Checks email, phone and timezone; returns the normalised phone. Appends to `errors`. */
export function normalizeContactFields(
  input: ContactFieldsInput,
  errors: FieldError[],
  prefix = '',
): { phone?: string | null } {
  const out: { phone?: string | null } = {}
  if (input.email !== undefined && !isEmail(input.email))
    errors.push({ field: `${prefix}email`, message: 'must be a valid email address' })
  if (input.phone !== undefined) {
    if (input.phone === null || input.phone.trim() === '') out.phone = null
    else {
      const phone = normalizePhone(input.phone)
      if (phone === null)
        errors.push({
          field: `${prefix}phone`,
          message: 'is not a phone number; use international format, e.g. +14155550100',
        })
      out.phone = phone
    }
  }
  if (input.timezone != null && !isTimeZone(input.timezone))
    errors.push({ field: `${prefix}timezone`, message: 'must be an IANA time zone name, e.g. Europe/Paris' })
  return out
}

/**
 * The checks of a contact's members that need no database (the contact verbs' `check`). In a
 * patch, custom fields set to null are removals and do not count.
 */
export function contactFieldErrors(
  input: ContactFieldsInput & { custom_fields?: Record<string, unknown> },
  patch = false,
): FieldError[] {
  const errors: FieldError[] = []
  normalizeContactFields(input, errors)
  const custom = input.custom_fields
  if (custom)
    checkCustomFields(
      patch ? Object.fromEntries(Object.entries(custom).filter(([, v]) => v !== null)) : custom,
      'custom_fields',
      errors,
    )
  return errors
}
