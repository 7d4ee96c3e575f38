import { CAMPAIGN_CHANNELS, MESSAGE_STATUSES } from '../../../lib/enums'
import { getMessageVerb, outboxVerb } from '../../../services/messages/verbs'
import { invoke } from '../../../services/verbs/invoke'
import { inertHtml } from '../inert-html'
import { defineSection, page } from '../types'
import { nextPageUrl, queryValue } from './links'

// Captured messages, the outbox viewer like Mailpit: the list newest first with
// filters (campaign, status, channel, part of the recipient) from the portal-only
// messages.outbox verb; a message's page with its rendered HTML in <iframe sandbox srcdoc>, the
// text, the headers, and the source (the stored headers and bodies as a MIME text; capture keeps
// no wire bytes, so this is the message as it would be written, not a copy of what was sent).

const PATH = '/admin/messages'

/** The stored message as a MIME-like text: its headers, then each body part. */
function sourceOf(m: {
  to: string
  subject: string | null
  headers: Record<string, string>
  body_html: string | null
  body_text: string | null
}): string {
  const lines = Object.entries(m.headers).map(([k, v]) => `${k}: ${v}`)
  const names = new Set(Object.keys(m.headers).map((k) => k.toLowerCase()))
  if (!names.has('to')) lines.push(`To: ${m.to}`)
  if (!names.has('subject') && m.subject !== null) lines.push(`Subject: ${m.subject}`)
  const parts: string[] = []
  if (m.body_text !== null) parts.push(`Content-Type: text/plain; charset=utf-8\n\n${m.body_text}`)
  if (m.body_html !== null) parts.push(`Content-Type: text/html; charset=utf-8\n\n${m.body_html}`)
  if (parts.length <= 1) return `${lines.join('\n')}\n${parts[0] ?? ''}`
  const boundary = '--_Herald-portal'
  lines.push(`Content-Type: multipart/alternative; boundary="${boundary}"`)
  return `${lines.join('\n')}\n\n${parts.map((p) => `--${boundary}\n${p}\n`).join('')}--${boundary}--\n`
}

export const messagesSection = defineSection({
  path: PATH,
  title: 'Messages',
  order: 45,
  group: 'activity',
  routes: [
    {
      method: 'GET',
      path: PATH,
      handler: async (req) => {
        const pick = (name: string, allowed: readonly string[]) => {
          const v = queryValue(req, name)
          return v && allowed.includes(v) ? v : undefined
        }
        const filters = {
          campaign_id: queryValue(req, 'campaign_id'),
          status: pick('status', MESSAGE_STATUSES) as (typeof MESSAGE_STATUSES)[number] | undefined,
          channel: pick('channel', CAMPAIGN_CHANNELS) as (typeof CAMPAIGN_CHANNELS)[number] | undefined,
          to: queryValue(req, 'to'),
        }
        const result = await invoke(outboxVerb, req.ctx, {
          limit: 50,
          cursor: queryValue(req, 'cursor'),
          ...filters,
        })
        return page('pages/messages/index', 'Messages', {
          messages: result.data,
          filters: Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, v ?? ''])),
          filtered: Object.values(filters).some(Boolean),
          statuses: MESSAGE_STATUSES,
          channels: CAMPAIGN_CHANNELS,
          next_url: nextPageUrl(PATH, filters, result.next_cursor),
        })
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      handler: async (req) => {
        const m = await invoke(getMessageVerb, req.ctx, { id: req.params.id! })
        return page('pages/messages/show', m.subject ?? `Message to ${m.to}`, {
          message: m,
          html: m.body_html === null ? null : inertHtml(m.body_html),
          headers: Object.entries(m.headers).map(([name, value]) => ({ name, value })),
          source: sourceOf(m),
        })
      },
    },
  ],
})
