import { describe, expect, test } from 'bun:test'
import { clientIp } from '../../../src/http/admin/client-ip'

// Whose X-Forwarded-For is believed: loopback's always, a proxy elsewhere only when its address
// is in HERALD_TRUSTED_PROXIES; through a chain, the first address from the right that no trusted
// proxy's is.

const TRUSTED = Object.freeze(['10.0.0.10', '172.16.0.0/12', 'fd00::/8'])
const request = (forwarded?: string) =>
  new Request('http://herald.test/', { headers: forwarded ? { 'x-forwarded-for': forwarded } : {} })

describe('clientIp', () => {
  const cases: [string, string | null, string | undefined, readonly string[], string][] = [
    ['a direct client is itself', '203.0.113.7', undefined, TRUSTED, '203.0.113.7'],
    ['an untrusted peer cannot choose its address', '203.0.113.7', '198.51.100.1', TRUSTED, '203.0.113.7'],
    ['loopback is trusted without a setting', '127.0.0.1', '198.51.100.1', [], '198.51.100.1'],
    ['a proxy elsewhere is not trusted without the setting', '10.0.0.10', '198.51.100.1', [], '10.0.0.10'],
    ['a proxy in the setting is believed', '10.0.0.10', '198.51.100.1', TRUSTED, '198.51.100.1'],
    ['a range in the setting is believed', '172.20.1.2', '198.51.100.1', TRUSTED, '198.51.100.1'],
    ['an IPv6 range', 'fd12::5', '2001:db8::9', TRUSTED, '2001:db8::9'],
    [
      'an IPv4 proxy seen on a dual-stack socket',
      '::ffff:10.0.0.10',
      '198.51.100.1',
      TRUSTED,
      '198.51.100.1',
    ],
    [
      'an IPv4 range seen on a dual-stack socket',
      '::ffff:172.16.0.9',
      '198.51.100.1',
      TRUSTED,
      '198.51.100.1',
    ],
    [
      "a client's own header to the left is not read",
      '10.0.0.10',
      '1.2.3.4, 198.51.100.1',
      TRUSTED,
      '198.51.100.1',
    ],
    [
      'a chain of trusted proxies is read past',
      '10.0.0.10',
      '198.51.100.1, 172.16.5.5',
      TRUSTED,
      '198.51.100.1',
    ],
    ['the leftmost when every hop is trusted', '10.0.0.10', '172.16.5.5, 10.0.0.10', TRUSTED, '172.16.5.5'],
    ['an over-long entry falls back to the peer', '10.0.0.10', 'x'.repeat(65), TRUSTED, '10.0.0.10'],
    ['an in-process request (no peer) is loopback', null, '198.51.100.1', [], '198.51.100.1'],
  ]
  for (const [name, peer, forwarded, trusted, expected] of cases)
    test(name, () => expect(clientIp(request(forwarded), peer, trusted)).toBe(expected))
})
