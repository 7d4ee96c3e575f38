import type { Config } from '../config'
import { createCaptureProvider } from './capture'
import { createSimulatorProvider, parseSimulatorRates } from './simulator'
import { createSmtpProvider } from './smtp'
import { createTwilioProvider } from './twilio'
import { CHANNELS, type Channel, type ChannelFeedback, type ChannelProvider } from './types'

// The provider of each channel, from the configuration (DESIGN.md §1 and §8). One instance per
// kind serves every channel that uses it: one Twilio client, one simulator and its timers.

type Settings = Pick<
  Config,
  | 'emailProvider'
  | 'smtpUrl'
  | 'smtpPool'
  | 'smsProvider'
  | 'voiceProvider'
  | 'whatsappProvider'
  | 'rcsProvider'
  | 'twilioBaseUrl'
  | 'twilioAccountSid'
  | 'twilioAuthToken'
  | 'twilioFrom'
  | 'simulatorRates'
>

export function createProviders(
  config: Settings,
  feedback: ChannelFeedback,
): Record<Channel, ChannelProvider> {
  const kinds: Record<Channel, string> = {
    email: config.emailProvider,
    sms: config.smsProvider,
    voice: config.voiceProvider,
    whatsapp: config.whatsappProvider,
    rcs: config.rcsProvider,
  }
  const instances = new Map<string, ChannelProvider>()
  const create = (kind: string): ChannelProvider => {
    switch (kind) {
      case 'capture':
        return createCaptureProvider()
      case 'simulator':
        return createSimulatorProvider({ rates: parseSimulatorRates(config.simulatorRates), feedback })
      case 'smtp':
        if (!config.smtpUrl) throw new Error('HERALD_EMAIL_PROVIDER=smtp needs HERALD_SMTP_URL')
        return createSmtpProvider({ url: config.smtpUrl, pool: config.smtpPool })
      case 'twilio': {
        const missing = [
          ['HERALD_TWILIO_BASE_URL', config.twilioBaseUrl],
          ['HERALD_TWILIO_ACCOUNT_SID', config.twilioAccountSid],
          ['HERALD_TWILIO_AUTH_TOKEN', config.twilioAuthToken],
        ].filter(([, value]) => !value)
        if (missing.length > 0)
          throw new Error(`the twilio provider needs ${missing.map(([name]) => name).join(', ')}`)
        return createTwilioProvider({
          baseUrl: config.twilioBaseUrl!,
          accountSid: config.twilioAccountSid!,
          authToken: config.twilioAuthToken!,
          from: config.twilioFrom,
        })
      }
      default:
        throw new Error(`unknown provider "${kind}"`)
    }
  }
  const providers = {} as Record<Channel, ChannelProvider>
  try {
    for (const channel of CHANNELS) {
      const kind = kinds[channel]
      if (!instances.has(kind)) instances.set(kind, create(kind))
      providers[channel] = instances.get(kind)!
    }
  } catch (err) {
    void closeProviders(providers) // the ones made before the bad setting
    throw err
  }
  return providers
}

/** Closes each distinct provider once (several channels may share one). */
export async function closeProviders(providers: Partial<Record<Channel, ChannelProvider>>): Promise<void> {
  await Promise.all([...new Set(Object.values(providers))].map((p) => p.close()))
}
