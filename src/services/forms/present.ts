import type { FormRow } from '../../db/schema'
import { iso } from '../../lib/time'

/** Where a form's hosted page lives (the embed posts there too). */
export const formUrl = (publicUrl: string, id: string) => `${publicUrl.replace(/\/+$/, '')}/f/${id}`

export function presentForm(row: FormRow, publicUrl: string) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    list_ids: row.listIds,
    fields: row.fields,
    double_opt_in: row.doubleOptIn,
    confirmation_template_id: row.confirmationTemplateId,
    consent_text: row.consentText,
    success_url: row.successUrl,
    confirmed_url: row.confirmedUrl,
    status: row.status,
    url: formUrl(publicUrl, row.id),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}
