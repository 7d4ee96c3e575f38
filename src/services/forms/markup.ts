import { escapeHtml } from '../../lib/html-escape'

// The HTML of a form's fields, shared by the hosted page and the embed code: plain inputs
// named as the public endpoint reads them, the consent text, and the honeypot `hp` that people
// never see (bots fill it). No script anywhere.

const STANDARD: Record<string, { label: string; type: string; autocomplete: string }> = {
  email: { label: 'Email', type: 'email', autocomplete: 'email' },
  first_name: { label: 'First name', type: 'text', autocomplete: 'given-name' },
  last_name: { label: 'Last name', type: 'text', autocomplete: 'family-name' },
  company: { label: 'Company', type: 'text', autocomplete: 'organization' },
  phone: { label: 'Phone', type: 'tel', autocomplete: 'tel' },
}

/** `custom.favourite_colour` → `Favourite colour`. */
function customLabel(field: string): string {
  const words = field.slice('custom.'.length).replace(/[_-]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export interface FieldsMarkup {
  fields: readonly string[]
  consentText: string
  /** What the person typed, put back when the page is shown again with an error. */
  values?: Record<string, string>
  /** Inline style for the honeypot (an embed has no stylesheet of ours); else class `hp` alone. */
  inlineHoneypot?: boolean
  /** Prefix of the inputs' ids, unique on the page that holds the form. */
  idPrefix: string
}

export function fieldsMarkup({ fields, consentText, values = {}, inlineHoneypot, idPrefix }: FieldsMarkup) {
  const inputs = fields.map((field) => {
    const known = STANDARD[field]
    const id = `${idPrefix}-${field.replace(/[^A-Za-z0-9_-]/g, '-')}`
    const value = values[field] ? ` value="${escapeHtml(values[field])}"` : ''
    const attrs = known
      ? `type="${known.type}" autocomplete="${known.autocomplete}"${field === 'email' ? ' required' : ''}`
      : 'type="text"'
    return `<label for="${id}">${escapeHtml(known?.label ?? customLabel(field))}</label><input id="${id}" name="${escapeHtml(field)}" ${attrs} maxlength="${field === 'email' ? 254 : 200}"${value}>`
  })
  const consent = `<p>${escapeHtml(consentText).replace(/\r?\n/g, '<br>')}</p>`
  const hidden = inlineHoneypot ? ' style="position:absolute;left:-9999px"' : ''
  const honeypot = `<div class="hp"${hidden} aria-hidden="true"><label for="${idPrefix}-hp">Leave this field empty</label><input id="${idPrefix}-hp" type="text" name="hp" tabindex="-1" autocomplete="off"></div>`
  return `${inputs.join('')}${consent}${honeypot}<button type="submit">Subscribe</button>`
}

/** The code a site pastes: a plain form posting to the public endpoint (the browser follows the 303). */
export function embedHtml(action: string, form: { fields: readonly string[]; consentText: string }) {
  return `<form method="post" action="${escapeHtml(action)}" accept-charset="utf-8" class="herald-form">${fieldsMarkup({ ...form, inlineHoneypot: true, idPrefix: 'herald' })}</form>`
}
