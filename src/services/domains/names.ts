import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** A domain as the user typed it → its ASCII (punycode) lower-case form, or null if it is not one. */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '')
  if (trimmed === '' || isIP(trimmed) !== 0) return null
  const ascii = domainToASCII(trimmed.toLowerCase())
  if (!ascii || ascii.length > 253) return null
  const labels = ascii.split('.')
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null
  if (/^\d+$/.test(labels.at(-1) ?? '')) return null
  return ascii
}

/** The domain of an address and each parent with two labels or more, most specific first. */
export function domainCandidates(email: string): string[] {
  const domain = normalizeDomain(email.slice(email.lastIndexOf('@') + 1))
  if (!domain) return []
  const labels = domain.split('.')
  const out: string[] = []
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'))
  return out
}
