import type { Ctx } from '../../context'
import type { SendingProfileRow, StoredProfile, StoredTextChannel } from '../../db/schema'
import { decryptSecret } from '../../lib/crypto'
import { isoOrNull } from '../../lib/time'
import { lastReceived } from '../esp-feedback/record'

// A profile as the API shows it: secrets masked (`smtp://user:•••@host:587`, `*_set: true`), the
// feedback URLs to paste into each provider's console, with when each provider last posted.

const MASK = '•••'

/** The SMTP URL with its password masked. */
function maskedSmtpUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = MASK
    return u.toString().replace(encodeURIComponent(MASK), MASK)
  } catch {
    return MASK
  }
}

const text = (c: StoredTextChannel = { provider: 'inherit' }) => ({
  provider: c.provider,
  twilio_account_sid: c.twilio_account_sid ?? null,
  auth_token_set: c.twilio_auth_token !== undefined,
  twilio_base_url: c.twilio_base_url ?? null,
  from: c.from ?? null,
})

export async function presentProfile(
  ctx: Pick<Ctx, 'config' | 'secretKey' | 'db'>,
  clientId: string,
  row: SendingProfileRow | undefined,
) {
  const p: StoredProfile | null = row?.profile ?? null
  const url = (provider: string) =>
    row ? `${ctx.config.publicUrl}/hooks/${provider}/${row.feedbackToken}` : null
  const received = await lastReceived(ctx, clientId)
  const smtp = p?.email.smtp_url ? maskedSmtpUrl(decryptSecret(ctx.secretKey, p.email.smtp_url)) : null
  return {
    client_id: clientId,
    email: {
      provider: p?.email.provider ?? 'inherit',
      smtp_url: smtp,
      pool: p?.email.pool ?? null,
      throttles: p?.email.throttles ?? {},
      hourly_cap: p?.email.hourly_cap ?? null,
    },
    sms: { ...text(p?.sms), help_text: p?.sms.help_text ?? null },
    voice: text(p?.voice),
    whatsapp: text(p?.whatsapp),
    rcs: text(p?.rcs),
    default_sender_id: p?.default_sender_id ?? null,
    footer: { company: p?.footer.company ?? null, postal_address: p?.footer.postal_address ?? null },
    feedback: {
      ses: { enabled: p?.feedback.ses?.enabled ?? false },
      postmark: p?.feedback.postmark ? { username: p.feedback.postmark.username, password_set: true } : null,
      mailgun: p?.feedback.mailgun ? { signing_key_set: true } : null,
      sendgrid: p?.feedback.sendgrid ? { public_key: p.feedback.sendgrid.public_key } : null,
      urls: row
        ? {
            ses: url('ses'),
            postmark: url('postmark'),
            mailgun: url('mailgun'),
            sendgrid: url('sendgrid'),
            // Inbound texts (STOP, START, HELP, replies): the Messaging webhook of the Twilio number.
            twilio_sms: url('twilio/sms'),
          }
        : null,
      last_received_at: {
        ses: isoOrNull(received.ses),
        postmark: isoOrNull(received.postmark),
        mailgun: isoOrNull(received.mailgun),
        sendgrid: isoOrNull(received.sendgrid),
      },
    },
    version: row?.version ?? 0,
    updated_at: isoOrNull(row?.updatedAt ?? null),
  }
}
