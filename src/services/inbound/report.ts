import type { Bounce } from '../messages/activity'

// The machine-readable parts of delivery and feedback reports. Both use RFC 5322 header syntax:
// RFC 3464 delivery-status is a per-message group and one group per recipient, separated by
// blank lines; RFC 5965 feedback-report is a single group.

/** The fields of one header block, names lower-case, folded lines joined; the first of a name wins. */
export function fieldsOf(block: string): Map<string, string> {
  const lines: [string, string][] = []
  let current: [string, string] | null = null
  for (const line of block.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^[ \t]/.test(line)) {
      if (current) current[1] = `${current[1]} ${line.trim()}`.trim()
      continue
    }
    const m = /^([!-9;-~]+)\s*:(.*)$/.exec(line)
    current = m ? [m[1]!.toLowerCase(), m[2]!.trim()] : null
    if (current) lines.push(current)
  }
  const fields = new Map<string, string>()
  for (const [name, value] of lines) if (!fields.has(name)) fields.set(name, value)
  return fields
}

/** The header block of a returned message (message/rfc822 or text/rfc822-headers). */
export const headerBlock = (content: string) => content.replace(/\r\n?/g, '\n').split(/\n\n/, 1)[0] ?? ''

const groupsOf = (text: string) =>
  text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map(fieldsOf)
    .filter((g) => g.size > 0)

/** `smtp; 550 5.1.1 user unknown` → `550 5.1.1 user unknown` (the diagnostic type is noise here). */
const withoutType = (v: string | undefined) => (v ? v.replace(/^[\w-]+\s*;\s*/, '').trim() || null : null)

/**
 * The bounce a delivery-status report describes, or null when no recipient failed or was delayed
 * (delivered, relayed and expanded are successes). Herald sends one recipient per message, so
 * the first failed recipient wins, else the first delayed one.
 */
export function bounceOf(deliveryStatus: string): Bounce | null {
  const recipients = groupsOf(deliveryStatus).filter((g) => g.has('action'))
  const action = (g: Map<string, string>) => g.get('action')!.toLowerCase().split(/[\s(]/, 1)[0]
  const pick =
    recipients.find((g) => action(g) === 'failed') ?? recipients.find((g) => action(g) === 'delayed')
  if (!pick) return null
  const statusCode = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(pick.get('status') ?? '')?.[1] ?? null
  // A delay is never final; a failure is permanent unless its status says temporary (4.x.x).
  const type = action(pick) === 'delayed' || statusCode?.startsWith('4') ? 'soft' : 'hard'
  return { type, statusCode, diagnostic: withoutType(pick.get('diagnostic-code')) }
}

/** Feedback-Type of an ARF report (abuse, fraud, virus, other, not-spam), lower-case. */
export function feedbackTypeOf(report: string): string | null {
  return fieldsOf(report).get('feedback-type')?.toLowerCase() ?? null
}

/** The sender address an ARF report names (Original-Mail-From), often our bounce+ address. */
export function originalMailFromOf(report: string): string | null {
  return fieldsOf(report).get('original-mail-from')?.replace(/^<|>$/g, '') ?? null
}
