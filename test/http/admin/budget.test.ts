import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { PORTAL_ENV, signIn } from './portal-helpers'

// The transfer bars for the pages of this part: a first load (the page and every asset
// it names, gzipped) ≤ 150 KB, a later htmx navigation ≤ 20 KB. Measured with a full page of
// records (50 API keys), since an empty list proves nothing.

const t = await createTestApp({ env: PORTAL_ENV })
for (let i = 0; i < 60; i++)
  await t.key({
    scopes: ['contacts:read', 'contacts:write', 'lists:read'],
    clientId: t.defaultClientId,
    name: `key ${i}`,
  })

async function gzBytes(path: string, cookie: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await t.app.handle(
    new Request(`http://localhost:8080${path}`, {
      headers: { cookie, 'accept-encoding': 'gzip', ...headers },
    }),
  )
  expect(res.status).toBe(200)
  return (await res.arrayBuffer()).byteLength
}

describe('transfer budget', () => {
  test.each([
    '/admin',
    '/admin/api-keys',
    '/admin/api-keys/new',
    '/admin/account',
  ])('%s: first load ≤ 150 KB gzipped, an htmx swap ≤ 20 KB', async (path) => {
    const b = await signIn(t)
    const cookie = `herald_session=${b.cookies.get('herald_session')}`
    const html = (await b.get(path)).text
    const assets = [...html.matchAll(/(?:src|href)="(\/admin\/static\/[^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBe(4)
    let first = await gzBytes(path, cookie)
    for (const a of assets) first += await gzBytes(a, cookie)
    const swap = await gzBytes(path, cookie, { 'hx-request': 'true' })
    expect(first).toBeLessThanOrEqual(150 * 1024)
    expect(swap).toBeLessThanOrEqual(20 * 1024)
  })

  test('the API keys page did render a full page of 50 keys', async () => {
    const b = await signIn(t)
    expect((await b.get('/admin/api-keys')).text.match(/<tr>/g)?.length).toBe(51)
  })
})
