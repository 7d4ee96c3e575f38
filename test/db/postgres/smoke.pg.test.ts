import { expect, test } from 'bun:test'
import { createLogger } from '../../../src/lib/log'
import { createTestApp } from '../../helpers/app'

test('clients and contacts over REST', async () => {
  const t = await createTestApp({ log: createLogger('json', (l) => console.error(l)) })
  const clientId = await t.client('Acme')
  const key = await t.key({ scopes: ['contacts:write', 'contacts:read'], clientId })
  const r = await t.call('POST', '/api/v1/contacts', {
    key,
    body: { email: 'ann@example.com', first_name: 'Ann' },
  })
  console.log(r.status, r.text.slice(0, 300))
  const l = await t.call('GET', '/api/v1/contacts', { key })
  console.log(l.status, l.text.slice(0, 300))
})
