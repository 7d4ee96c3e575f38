import { and, eq } from 'drizzle-orm'
import { LiquidError } from 'liquidjs'
import type { Ctx } from '../../context'
import { clients, contacts } from '../../db/schema'
import { visibleTo } from '../../db/tenant'
import { invalidField } from '../../errors'
import { parseId } from '../../lib/ids'
import { smsInfo } from '../../lib/sms'
import type { PreviewInput } from './inputs'
import { findTemplateRow } from './manage'
import { type RenderVariables, renderTemplate } from './render'
import { clientVariables, contactVariables } from './variables'

type Members = Record<string, unknown>

const isObject = (v: unknown): v is Members => typeof v === 'object' && v !== null && !Array.isArray(v)

function loadContact(ctx: Ctx, clientId: string, contactId: string): Members {
  const id = parseId(contactId)
  const row = id
    ? ctx.db
        .select()
        .from(contacts)
        .where(
          and(eq(contacts.id, id), eq(contacts.clientId, clientId), visibleTo(ctx.actor, contacts.clientId)),
        )
        .get()
    : undefined
  if (!row) throw invalidField('contact_id', "no such contact in the template's client")
  return contactVariables(row)
}

/**
 * Renders a template with a stored contact and/or inline sample data (sample members win,
 * `custom` merges member by member) and reports the variables that printed empty.
 */
export function previewTemplate(ctx: Ctx, id: string, input: PreviewInput) {
  const row = findTemplateRow(ctx, id)
  const base = input.contact_id !== undefined ? loadContact(ctx, row.clientId, input.contact_id) : {}
  const sample = input.sample ?? {}
  const client = ctx.db.select().from(clients).where(eq(clients.id, row.clientId)).get()
  const sampleContact = sample.contact ?? {}
  const variables: RenderVariables = {
    contact: {
      ...base,
      ...sampleContact,
      custom: {
        ...(isObject(base.custom) ? base.custom : {}),
        ...(isObject(sampleContact.custom) ? sampleContact.custom : {}),
      },
    },
    client: { ...(client ? clientVariables(client) : {}), ...sample.client },
    campaign: { ...sample.campaign },
    unsubscribe_url: sample.unsubscribe_url ?? `${ctx.config.publicUrl}/u/preview`,
  }
  const missing = new Set<string>()
  let rendered: ReturnType<typeof renderTemplate>
  try {
    rendered = renderTemplate(row, variables, missing)
  } catch (err) {
    if (err instanceof LiquidError)
      throw invalidField(
        'template',
        `The template failed to render: ${err.message.replace(/, line:(\d+), col:(\d+)$/, ' (line $1, column $2)')}`,
      )
    throw err
  }
  return {
    template_id: row.id,
    client_id: row.clientId,
    channel: row.channel,
    ...rendered,
    missing_variables: [...missing],
    ...(row.channel === 'sms' ? { sms: smsInfo(rendered.body_text ?? '') } : {}),
  }
}
