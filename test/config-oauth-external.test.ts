import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

// External identity provider mode (DESIGN §5): HERALD_OAUTH_EXTERNAL_ISSUER and _JWKS_URL together
// or not at all; the issuer is never Herald itself (its own tokens are told apart by `iss`).

const PUBLIC = 'https://herald.example.test'
const ISSUER = 'https://login.example.test/tenant-1/'
const JWKS = 'https://login.example.test/tenant-1/keys'

describe('HERALD_OAUTH_EXTERNAL_*', () => {
  test('off by default', () => {
    const c = loadConfig({}, { HERALD_PUBLIC_URL: PUBLIC })
    expect([c.oauthExternalIssuer, c.oauthExternalJwksUrl, c.oauthExternalAudience]).toEqual([
      null,
      null,
      null,
    ])
  })

  test('issuer kept exactly as written (a trailing slash stays: `iss` is compared as a string)', () => {
    const c = loadConfig(
      {},
      {
        HERALD_PUBLIC_URL: PUBLIC,
        HERALD_OAUTH_EXTERNAL_ISSUER: ` ${ISSUER} `,
        HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS,
        HERALD_OAUTH_EXTERNAL_AUDIENCE: 'api://herald',
      },
    )
    expect([c.oauthExternalIssuer, c.oauthExternalJwksUrl, c.oauthExternalAudience]).toEqual([
      ISSUER,
      JWKS,
      'api://herald',
    ])
  })

  const bad: [string, Record<string, string>, RegExp][] = [
    [
      'issuer without JWKS URL',
      { HERALD_OAUTH_EXTERNAL_ISSUER: ISSUER },
      /HERALD_OAUTH_EXTERNAL_ISSUER and HERALD_OAUTH_EXTERNAL_JWKS_URL are set together/,
    ],
    [
      'JWKS URL without issuer',
      { HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS },
      /HERALD_OAUTH_EXTERNAL_ISSUER and HERALD_OAUTH_EXTERNAL_JWKS_URL are set together/,
    ],
    [
      'issuer equal to HERALD_PUBLIC_URL',
      { HERALD_OAUTH_EXTERNAL_ISSUER: PUBLIC, HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS },
      /HERALD_OAUTH_EXTERNAL_ISSUER must not be Herald itself/,
    ],
    [
      'issuer equal to HERALD_PUBLIC_URL but for a trailing slash',
      { HERALD_OAUTH_EXTERNAL_ISSUER: `${PUBLIC}/`, HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS },
      /HERALD_OAUTH_EXTERNAL_ISSUER must not be Herald itself/,
    ],
    [
      'issuer not a URL',
      { HERALD_OAUTH_EXTERNAL_ISSUER: 'login', HERALD_OAUTH_EXTERNAL_JWKS_URL: JWKS },
      /HERALD_OAUTH_EXTERNAL_ISSUER must be a URL/,
    ],
    [
      'JWKS URL not http(s)',
      { HERALD_OAUTH_EXTERNAL_ISSUER: ISSUER, HERALD_OAUTH_EXTERNAL_JWKS_URL: 'file:///etc/keys.json' },
      /HERALD_OAUTH_EXTERNAL_JWKS_URL must use http: or https:/,
    ],
    [
      'audience without the mode',
      { HERALD_OAUTH_EXTERNAL_AUDIENCE: 'api://herald' },
      /HERALD_OAUTH_EXTERNAL_AUDIENCE needs HERALD_OAUTH_EXTERNAL_ISSUER/,
    ],
  ]
  for (const [name, env, message] of bad)
    test(`${name} → ConfigError`, () => {
      const load = () => loadConfig({}, { HERALD_PUBLIC_URL: PUBLIC, ...env })
      expect(load).toThrow(ConfigError)
      expect(load).toThrow(message)
    })
})
