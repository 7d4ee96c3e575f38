import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'

// The token and revocation endpoints' answers to malformed client authentication (RFC 6749
// §5.2): a client that tried `Authorization: Basic` gets 401 invalid_client with a Basic
// challenge, also when the header does not decode to `id:secret`.

const t = await createTestApp()

const post = (path: string, authorization: string, body: string) =>
  t.call('POST', path, {
    key: null,
    raw: body,
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
  })

describe('malformed Basic client credentials', () => {
  const malformed = {
    'not base64': 'Basic !!!!',
    'no colon': `Basic ${Buffer.from('abc').toString('base64')}`,
    'bad percent-encoding': `Basic ${Buffer.from('%zz:%zz').toString('base64')}`,
    'no credentials at all': 'Basic',
  }
  for (const path of ['/oauth2/token', '/oauth2/revoke'])
    for (const [name, header] of Object.entries(malformed))
      test(`${path}, ${name} → 401 invalid_client with a Basic challenge`, async () => {
        const res = await post(path, header, 'grant_type=client_credentials&token=x')
        expect(res.status).toBe(401)
        expect(res.body.error).toBe('invalid_client')
        expect(res.headers.get('www-authenticate')).toStartWith('Basic')
        expect(res.headers.get('cache-control')).toBe('no-store')
      })
})
