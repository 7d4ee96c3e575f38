import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config'
import { signatureFor, signedHeaders } from '../../src/webhooks/signing'
import { deliveryProblem, isPrivateAddress, urlProblem } from '../../src/webhooks/ssrf'

describe('isPrivateAddress', () => {
  const cases: [string, boolean][] = [
    ['127.0.0.1', true],
    ['10.20.30.40', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.215.14', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['fd00:ec2::254', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['not an ip', true],
  ]
  for (const [address, expected] of cases)
    test(`${address} → ${expected ? 'private' : 'public'}`, () =>
      expect(isPrivateAddress(address)).toBe(expected))
})

describe('urlProblem and deliveryProblem', () => {
  test('allow-private permits http and loopback, still refuses other schemes', () => {
    expect(urlProblem('http://127.0.0.1:9/x', true)).toBeNull()
    expect(urlProblem('file:///etc/passwd', true)).toBe('must use https')
  })
  test('literal private addresses are refused before any look-up', async () => {
    expect(await deliveryProblem('https://10.0.0.1/', false)).toBe('must be a public address')
    expect(await deliveryProblem('https://[::1]/', false)).toBe('must be a public address')
  })
  test('a name that does not resolve is refused at delivery time', async () => {
    expect(await deliveryProblem('https://no-such-host.invalid/', false)).toStartWith(
      'no-such-host.invalid does not resolve',
    )
  })
})

describe('signing', () => {
  test('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks specification's examples.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const body = '{"test": 2432232314}'
    expect(signatureFor(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    )
    const h = signedHeaders([secret, secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330_000, body)
    expect(h['webhook-signature'].split(' ')).toHaveLength(2)
    expect(h['webhook-timestamp']).toBe('1614265330')
  })
})

describe('HERALD_WEBHOOK_RETRY_SCHEDULE', () => {
  test('durations with units, or the default', () => {
    expect(loadConfig({}, {}).webhookRetrySchedule).toBeNull()
    expect(loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,250,5s,5m,2h' }).webhookRetrySchedule).toEqual([
      0, 250, 5000, 300_000, 7_200_000,
    ])
  })
  test('a bad value names the setting', () => {
    expect(() => loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(ConfigError)
    expect(() => loadConfig({}, { HERALD_WEBHOOK_RETRY_SCHEDULE: '0,soon' })).toThrow(
      /HERALD_WEBHOOK_RETRY_SCHEDULE/,
    )
  })
})
