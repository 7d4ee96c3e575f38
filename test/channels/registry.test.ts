import { describe, expect, test } from 'bun:test'
import { closeProviders, createProviders } from '../../src/channels/registry'
import type { ChannelFeedback } from '../../src/channels/types'
import { loadConfig } from '../../src/config'

// Which provider each channel gets from the configuration, and what a missing setting says.

const feedback: ChannelFeedback = {
  messageOf: () => null,
  now: () => 0,
  delivered() {},
  failed() {},
  opened() {},
  clicked() {},
  bounced() {},
  replied() {},
}
const providersFor = (env: Record<string, string>) => createProviders(loadConfig({}, env), feedback)
const names = (p: ReturnType<typeof providersFor>) =>
  Object.fromEntries(Object.entries(p).map(([c, v]) => [c, v.name]))

describe('createProviders', () => {
  test('by default every channel captures, through one shared instance', async () => {
    const p = providersFor({})
    expect(names(p)).toEqual({
      email: 'capture',
      sms: 'capture',
      voice: 'capture',
      whatsapp: 'capture',
      rcs: 'capture',
    })
    expect(new Set(Object.values(p)).size).toBe(1)
    expect(await p.email.send({} as never)).toEqual({ providerMessageId: null, delivered: true })
    await closeProviders(p)
  })

  test('HERALD_SMTP_URL makes email go out by SMTP; a simulator is shared by the channels using it', async () => {
    const p = providersFor({
      HERALD_SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
      HERALD_SMS_PROVIDER: 'simulator',
      HERALD_WHATSAPP_PROVIDER: 'simulator',
      HERALD_SIMULATOR_RATES: 'opened=0.5',
    })
    expect(names(p)).toMatchObject({
      email: 'smtp',
      sms: 'simulator',
      whatsapp: 'simulator',
      voice: 'capture',
    })
    expect(p.sms).toBe(p.whatsapp)
    await closeProviders(p)
  })

  test('twilio without its settings is refused naming what is missing (behind config.ts’s own check)', () => {
    const base = loadConfig({}, {})
    expect(() => createProviders({ ...base, smsProvider: 'twilio' }, feedback)).toThrow(
      'the twilio provider needs HERALD_TWILIO_BASE_URL, HERALD_TWILIO_ACCOUNT_SID, HERALD_TWILIO_AUTH_TOKEN',
    )
    const partial = {
      ...base,
      voiceProvider: 'twilio' as const,
      twilioBaseUrl: 'https://api.twilio.com',
      twilioAccountSid: 'AC1',
    }
    expect(() => createProviders(partial, feedback)).toThrow(/needs HERALD_TWILIO_AUTH_TOKEN$/)
  })

  test('twilio with its settings serves every channel set to it from one client', async () => {
    const p = providersFor({
      HERALD_SMS_PROVIDER: 'twilio',
      HERALD_VOICE_PROVIDER: 'twilio',
      HERALD_TWILIO_BASE_URL: 'https://api.twilio.com',
      HERALD_TWILIO_ACCOUNT_SID: 'AC1',
      HERALD_TWILIO_AUTH_TOKEN: 'secret',
    })
    expect(names(p)).toMatchObject({ sms: 'twilio', voice: 'twilio', email: 'capture' })
    expect(p.sms).toBe(p.voice)
    await closeProviders(p)
  })

  test('closeProviders closes a shared provider once', async () => {
    let closed = 0
    const shared = {
      name: 'x',
      capabilities: { storesContent: true, reportsDelivery: false, needsVerifiedSender: false },
      send: async () => ({ providerMessageId: null, delivered: true }),
      close: async () => void closed++,
    }
    await closeProviders({ email: shared, sms: shared, voice: shared })
    expect(closed).toBe(1)
  })
})
