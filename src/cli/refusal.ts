// How the CLI prints a verb's or the API's refusal. A refusal of one field carries its field error
// twice, as the message ("client_id: must be …") and as the one detail; printed both ways the
// operator read the same words twice.

interface FieldDetail {
  field: string
  message: string
}

const isFieldDetail = (d: unknown): d is FieldDetail =>
  typeof d === 'object' &&
  d !== null &&
  typeof (d as FieldDetail).field === 'string' &&
  typeof (d as FieldDetail).message === 'string'

/** The details worth printing after the message: none when the one detail is the message again. */
export function detailsBeyond(message: string, details: unknown): unknown[] {
  if (!Array.isArray(details)) return []
  const [only] = details
  if (details.length === 1 && isFieldDetail(only) && `${only.field}: ${only.message}` === message) return []
  return details
}

/** A refusal on one line: the message, then each field error it does not already say. */
export function refusalLine(message: string, details: unknown): string {
  const more = detailsBeyond(message, details).map((d) =>
    isFieldDetail(d) ? `${d.field}: ${d.message}` : JSON.stringify(d),
  )
  // "N fields are invalid; see details" points at a body the console has no reader for.
  return more.length ? `${message.replace(/; see details$/, '')}: ${more.join('; ')}` : message
}
