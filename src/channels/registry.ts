import type { Config } from '../config'
import type { Awaitable } from '../lib/awaitable'
import { CAPTURE_CAPABILITIES, createCaptureProvider } from './capture'
import { createSimulatorProvider, parseSimulatorRates, SIMULATOR_CAPABILITIES } from './simulator'
import { SMTP_CAPABILITIES } from './smtp-capabilities'
import { createTwilioProvider, TWILIO_CAPABILITIES, twilioStatusCallback } from './twilio'
import {
  CHANNELS,
  type Channel,
  type ChannelFeedback,
  type ChannelProvider,
  type ProviderCallback,
  type ProviderCapabilities,
} from './types'

// The provider of each channel, from the configuration. One instance per
// kind serves every channel that uses it: one Twilio client, one simulator and its timers.

/** The settings providers are made from (a send thread gets these, not the whole config). */
export type ProviderSettings = Settings
type Settings = Pick<
  Config,
  | 'emailProvider'
  | 'smtpUrl'
  | 'smtpPool'
  | 'smtpConnectTimeoutMs'
  | 'smtpSocketTimeoutMs'
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

/** The provider kind configured for each channel. */
export const kindsOf = (config: Settings): Record<Channel, string> => ({
  email: config.emailProvider,
  sms: config.smsProvider,
  voice: config.voiceProvider,
  whatsapp: config.whatsappProvider,
  rcs: config.rcsProvider,
})

/** Each kind's capabilities, known before any instance exists (launch checks a sender with them). */
const CAPABILITIES: Record<string, ProviderCapabilities> = {
  capture: CAPTURE_CAPABILITIES,
  simulator: SIMULATOR_CAPABILITIES,
  smtp: SMTP_CAPABILITIES,
  twilio: TWILIO_CAPABILITIES,
}

/** The capabilities of the provider configured for a channel. */
export function channelCapabilities(config: Settings, channel: Channel): ProviderCapabilities {
  const kind = kindsOf(config)[channel]
  const capabilities = CAPABILITIES[kind]
  if (!capabilities) throw new Error(`unknown provider "${kind}"`)
  return capabilities
}

/** The query naming the client whose own account a provider's callback reports for. */
export const CALLBACK_CLIENT_PARAM = 'client'

/**
 * The callbacks the configured providers declare (each is the same as its provider's
 * `callback`), so the HTTP layer can mount them before, or without, any send worker. With
 * `clientTwilioTokens`, the Twilio callback is always there: a client's own account reports with
 * its client named in the URL (`?client=`), checked with that client's tokens.
 */
export function providerCallbacks(
  config: Settings,
  clientTwilioTokens?: (clientId: string) => Awaitable<readonly string[]>,
): ProviderCallback[] {
  const kinds = new Set(Object.values(kindsOf(config)))
  const instanceToken = kinds.has('twilio') ? config.twilioAuthToken : null
  const out: ProviderCallback[] = []
  if (clientTwilioTokens)
    out.push(
      twilioStatusCallback((url) => {
        const clientId = new URL(url).searchParams.get(CALLBACK_CLIENT_PARAM)
        if (clientId !== null) return clientTwilioTokens(clientId)
        return instanceToken ? [instanceToken] : []
      }),
    )
  else if (instanceToken) out.push(twilioStatusCallback(instanceToken))
  return out
}

/** One provider of a kind, from the configuration (the send threads make theirs with it too). */
export function createProvider(kind: string, config: Settings, feedback: ChannelFeedback): ChannelProvider {
  switch (kind) {
    case 'capture':
      return createCaptureProvider()
    case 'simulator':
      return createSimulatorProvider({ rates: parseSimulatorRates(config.simulatorRates), feedback })
    case 'smtp':
      if (!config.smtpUrl) throw new Error('HERALD_EMAIL_PROVIDER=smtp needs HERALD_SMTP_URL')
      // Loaded when configured: nodemailer's SMTP and MIME code stays out of the heap otherwise.
      return (require('./smtp') as typeof import('./smtp')).createSmtpProvider({
        url: config.smtpUrl,
        pool: config.smtpPool,
        connectionTimeout: config.smtpConnectTimeoutMs,
        socketTimeout: config.smtpSocketTimeoutMs,
      })
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

export function createProviders(
  config: Settings,
  feedback: ChannelFeedback,
): Record<Channel, ChannelProvider> {
  const kinds = kindsOf(config)
  const instances = new Map<string, ChannelProvider>()
  const create = (kind: string) => createProvider(kind, config, feedback)
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
