import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

describe('config', () => {
  test('defaults', () => {
    const c = loadConfig({}, {})
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: './herald-data',
      log: 'json',
      emailProvider: 'capture',
      sendConcurrency: 8,
      smtpPool: 5,
    })
    expect(c.publicUrl).toBe('http://localhost:8080')
    expect(Object.isFrozen(c)).toBe(true)
  })

  test('flags win over the environment, which wins over defaults', () => {
    const c = loadConfig(
      { port: '9000', data: '/tmp/x' },
      { HERALD_PORT: '7000', HERALD_HOST: '127.0.0.1', HERALD_DATA_DIR: '/tmp/y' },
    )
    expect(c.port).toBe(9000)
    expect(c.host).toBe('127.0.0.1')
    expect(c.dataDir).toBe('/tmp/x')
    expect(c.publicUrl).toBe('http://127.0.0.1:9000')
  })

  test('the SMTP URL makes smtp the default email provider', () => {
    expect(loadConfig({}, { HERALD_SMTP_URL: 'smtp://u:p@mail:587' }).emailProvider).toBe('smtp')
  })

  const bad: [Record<string, string>, RegExp][] = [
    [{ HERALD_PORT: 'eighty' }, /HERALD_PORT.*whole number/],
    [{ HERALD_PORT: '70000' }, /HERALD_PORT.*between 0 and 65535/],
    [{ HERALD_LOG: 'xml' }, /HERALD_LOG must be one of json, pretty/],
    [{ HERALD_PUBLIC_URL: 'not a url' }, /HERALD_PUBLIC_URL must be a URL/],
    [{ HERALD_SMTP_URL: 'http://mail' }, /HERALD_SMTP_URL must use smtp: or smtps:/],
    [{ HERALD_EMAIL_PROVIDER: 'smtp' }, /HERALD_EMAIL_PROVIDER=smtp needs HERALD_SMTP_URL/],
    [
      { HERALD_SMS_PROVIDER: 'twilio' },
      /HERALD_TWILIO_BASE_URL is required when a channel uses the twilio provider \(sms\)/,
    ],
    [
      {
        HERALD_VOICE_PROVIDER: 'twilio',
        HERALD_TWILIO_BASE_URL: 'http://127.0.0.1:1',
        HERALD_TWILIO_ACCOUNT_SID: 'AC1',
      },
      /HERALD_TWILIO_AUTH_TOKEN is required .*\(voice\)/,
    ],
    [{ HERALD_TWILIO_FROM: '555-0100' }, /HERALD_TWILIO_FROM must be an E.164 number/],
    [{ HERALD_INBOUND_DOMAIN: 'not a domain' }, /HERALD_INBOUND_DOMAIN must be a domain name/],
    [{ HERALD_INBOUND_SMTP_PORT: 'x' }, /HERALD_INBOUND_SMTP_PORT must be a whole number/],
    [{ HERALD_SECRET_KEY: 'short' }, /HERALD_SECRET_KEY/],
    [{ HERALD_BOOTSTRAP_API_KEY: 'abc' }, /HERALD_BOOTSTRAP_API_KEY must look like hrld_/],
    [{ HERALD_EMAIL_PROVIDER: 'pigeon' }, /HERALD_EMAIL_PROVIDER must be one of/],
    [{ HERALD_SMS_PROVIDER: 'pigeon' }, /HERALD_SMS_PROVIDER must be one of capture, twilio, simulator/],
    [{ HERALD_WEBHOOK_ALLOW_PRIVATE: 'yes' }, /HERALD_WEBHOOK_ALLOW_PRIVATE/],
    [{ HERALD_SIMULATOR_RATES: 'opened=2' }, /opened must be a number from 0 to 1/],
    [{ HERALD_SEND_CONCURRENCY: '0' }, /HERALD_SEND_CONCURRENCY/],
    [{ HERALD_WEBHOOK_CONCURRENCY: '0' }, /HERALD_WEBHOOK_CONCURRENCY must be between 1 and 256/],
    [{ HERALD_DNS_SERVERS: '1.1.1.1:53, bad host!' }, /HERALD_DNS_SERVERS entry "bad host!"/],
    [
      { HERALD_TRUSTED_PROXIES: '10.0.0.0/8, caddy.internal' },
      /HERALD_TRUSTED_PROXIES entry "caddy.internal"/,
    ],
    [{ HERALD_TRUSTED_PROXIES: '10.0.0.0/33' }, /HERALD_TRUSTED_PROXIES entry "10.0.0.0\/33"/],
    [{ HERALD_TRUSTED_PROXIES: 'fd00::/129' }, /HERALD_TRUSTED_PROXIES entry "fd00::\/129"/],
    [{ HERALD_ADMIN_PASSWORD: 'short' }, /HERALD_ADMIN_PASSWORD must be at least 8/],
  ]
  for (const [env, message] of bad) {
    test(`${Object.keys(env)[0]}=${Object.values(env)[0]} stops start-up with one clear line`, () => {
      expect(() => loadConfig({}, env)).toThrow(ConfigError)
      expect(() => loadConfig({}, env)).toThrow(message)
    })
  }
})
