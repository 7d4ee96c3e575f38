import type { Ctx } from '../../context'
import { invalidField } from '../../errors'
import type { Upload } from '../../lib/upload'
import { type InboundEnvelope, type InboundResult, type ReadMail, readMail, routeInbound } from './receive'

/** Largest inbound message, over SMTP and REST alike. */
export const INBOUND_LIMIT = 10 * 1024 * 1024

export interface ReadUpload {
  read: ReadMail
  envelope?: InboundEnvelope
}

/**
 * inbound.receive, the I/O: the raw message an operator (or a mail gateway) hands over, read
 * from disk and parsed, with the envelope recipient(s) from `to` when known; without it the
 * delivery headers name them.
 */
export async function readUpload(upload: Upload | undefined, to?: string): Promise<ReadUpload> {
  if (!upload || upload.bytes === 0) throw invalidField('body', 'is empty; send the raw message (RFC 5322)')
  const raw = Buffer.from(await Bun.file(upload.file).arrayBuffer())
  const recipients = (to ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return { read: await readMail(raw), envelope: recipients.length ? { to: recipients } : undefined }
}

/** inbound.receive, the write: routed as the caller's client (a tenant key acts on its own mail). */
export async function receiveUpload(ctx: Ctx, { read, envelope }: ReadUpload): Promise<InboundResult> {
  return await routeInbound(ctx, read, { envelope, clientId: ctx.actor.clientId })
}
