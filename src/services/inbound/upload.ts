import type { Ctx } from '../../context'
import { invalidField } from '../../errors'
import type { Upload } from '../../lib/upload'
import { type InboundResult, receiveInbound } from './receive'

/** Largest inbound message, over SMTP and REST alike. */
export const INBOUND_LIMIT = 10 * 1024 * 1024

/**
 * POST /inbound/email: the raw message an operator (or a mail gateway) hands over, with the
 * envelope recipient(s) in `to` when known; without it the delivery headers name them.
 */
export async function receiveUpload(ctx: Ctx, upload: Upload, to?: string): Promise<InboundResult> {
  if (upload.bytes === 0) throw invalidField('body', 'is empty; send the raw message (RFC 5322)')
  const raw = Buffer.from(await Bun.file(upload.file).arrayBuffer())
  const recipients = (to ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return receiveInbound(ctx, raw, {
    envelope: recipients.length ? { to: recipients } : undefined,
    clientId: ctx.actor.clientId,
  })
}
