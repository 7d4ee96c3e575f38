import type { TemplateRow } from '../../db/schema'
import { iso } from '../../lib/time'

export function presentTemplate(row: TemplateRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    channel: row.channel,
    subject: row.subject,
    body_html: row.bodyHtml,
    body_text: row.bodyText,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export type TemplateView = ReturnType<typeof presentTemplate>
