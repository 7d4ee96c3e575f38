import type { AppContext } from '../../context'
import type { StoredProfile } from '../../db/schema'
import { decryptSecret } from '../../lib/crypto'
import { TEXT_CHANNELS } from './inputs'
import { profileRow } from './records'

/**
 * The auth tokens of a client's own Twilio accounts: the status callbacks of its messages are
 * signed with one of them. None for a client without any (or no such client).
 */
export async function twilioTokensOf(app: AppContext, clientId: string): Promise<string[]> {
  const profile = (await profileRow(app, clientId))?.profile
  if (!profile) return []
  const sealed = TEXT_CHANNELS.flatMap((c) => {
    const channel = profile[c]
    return channel?.provider === 'twilio' && channel.twilio_auth_token ? [channel.twilio_auth_token] : []
  })
  return [...new Set(sealed.map((token) => decryptSecret(app.secretKey, token)))]
}

/**
 * The auth token that signs texts posted to a client's inbound SMS URL: its own Twilio account
 * for SMS, else the instance's (null when there is neither, and nothing can be verified).
 */
export function inboundSmsToken(app: AppContext, profile: StoredProfile): string | null {
  const sms = profile.sms
  if (sms.provider === 'twilio' && sms.twilio_auth_token)
    return decryptSecret(app.secretKey, sms.twilio_auth_token)
  return app.config.twilioAuthToken
}
