import type { AppContext } from '../../context'
import type { StoredTextChannel } from '../../db/schema'
import { decryptSecret } from '../../lib/crypto'
import { TEXT_CHANNELS, type TextChannel } from './inputs'
import { profileRow } from './records'

// The accounts a client's messages go through now: its profile with every `inherit` resolved
// against the instance settings and every secret decrypted. For the send path and the
// connection test; never shown.

export interface EffectiveTextChannel {
  provider: 'capture' | 'twilio' | 'simulator'
  twilio: { accountSid: string; authToken: string; baseUrl: string | null; from: string | null } | null
}

export interface EffectiveProfile {
  clientId: string
  /** The profile's version (0: the client has none, everything is the instance's). */
  version: number
  email: {
    provider: 'capture' | 'smtp' | 'simulator'
    smtpUrl: string | null
    pool: number
    throttles: Readonly<Record<string, number>>
    hourlyCap: number | null
    /** Set when the client has its own email account (not the instance's). */
    own: boolean
  }
  text: Record<TextChannel, EffectiveTextChannel & { own: boolean }>
  defaultSenderId: string | null
  footer: { company: string | null; postalAddress: string | null }
}

function textChannel(app: AppContext, channel: TextChannel, c: StoredTextChannel | undefined) {
  const config = app.config
  if (!c || c.provider === 'inherit') {
    const provider = config[`${channel}Provider` as const]
    return {
      provider,
      own: false,
      twilio:
        provider === 'twilio' && config.twilioAccountSid && config.twilioAuthToken
          ? {
              accountSid: config.twilioAccountSid,
              authToken: config.twilioAuthToken,
              baseUrl: config.twilioBaseUrl,
              from: config.twilioFrom,
            }
          : null,
    }
  }
  return {
    provider: c.provider,
    own: true,
    twilio:
      c.provider === 'twilio' && c.twilio_account_sid && c.twilio_auth_token
        ? {
            accountSid: c.twilio_account_sid,
            authToken: decryptSecret(app.secretKey, c.twilio_auth_token),
            baseUrl: c.twilio_base_url ?? null,
            from: c.from ?? null,
          }
        : null,
  }
}

export async function effectiveProfile(app: AppContext, clientId: string): Promise<EffectiveProfile> {
  const row = await profileRow(app, clientId)
  const p = row?.profile
  const config = app.config
  const email = p?.email
  const ownEmail = email !== undefined && email.provider !== 'inherit'
  return {
    clientId,
    version: row?.version ?? 0,
    email: ownEmail
      ? {
          provider: email.provider as 'capture' | 'smtp' | 'simulator',
          smtpUrl: email.smtp_url ? decryptSecret(app.secretKey, email.smtp_url) : null,
          pool: email.pool ?? config.smtpPool,
          throttles: { ...config.domainThrottles, ...email.throttles },
          hourlyCap: email.hourly_cap ?? config.clientHourlyCap,
          own: true,
        }
      : {
          provider: config.emailProvider,
          smtpUrl: config.smtpUrl,
          pool: email?.pool ?? config.smtpPool,
          throttles: { ...config.domainThrottles, ...email?.throttles },
          hourlyCap: email?.hourly_cap ?? config.clientHourlyCap,
          own: false,
        },
    text: Object.fromEntries(
      TEXT_CHANNELS.map((c) => [c, textChannel(app, c, p?.[c])]),
    ) as EffectiveProfile['text'],
    defaultSenderId: p?.default_sender_id ?? null,
    footer: { company: p?.footer.company ?? null, postalAddress: p?.footer.postal_address ?? null },
  }
}
