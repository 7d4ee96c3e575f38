import type { Ctx } from '../../context'
import { ownerForCreate } from '../../db/tenant'
import { parseId } from '../../lib/ids'
import { enqueueMessage } from './enqueue'
import type { SendMessageBody } from './inputs'
import { getMessage } from './read'

const ref = (v: string | null | undefined) => (typeof v === 'string' ? (parseId(v) ?? v) : v)

/** The `messages.send` verb: the caller's client, then the outbox; answers the queued message. */
export async function sendMessage(ctx: Ctx, input: SendMessageBody) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, input.client_id)
  const row = await enqueueMessage(ctx, {
    clientId,
    contactId: ref(input.contact_id)!,
    channel: input.channel,
    templateId: ref(input.template_id),
    subject: input.subject,
    bodyHtml: input.body_html,
    bodyText: input.body_text,
    senderId: ref(input.sender_id),
    variables: input.variables,
  })
  return await getMessage(ctx, row.id)
}
