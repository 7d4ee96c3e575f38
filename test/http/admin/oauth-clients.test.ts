import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { csrfOf, lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// The portal's OAuth clients page (DESIGN §5: registered in the portal at /admin/oauth-clients).

const t = await createTestApp({ env: PORTAL_ENV })
const owner = lazyOwner(t)

describe('/admin/oauth-clients', () => {
  test('register a confidential client: the secret is shown once, it works at the token endpoint, then delete it', async () => {
    const b = await owner()
    expect((await b.get('/admin/oauth-clients')).text).toContain('No OAuth clients yet')
    const form = await b.get('/admin/oauth-clients/new')
    expect(form.status).toBe(200)
    const created = await b.post('/admin/oauth-clients', {
      name: 'Reporting <b>bot</b>',
      redirect_uris: 'https://app.example/cb\n\nhttp://127.0.0.1:8765/cb',
      confidential: 'on',
      scopes: ['contacts:read', 'analytics:read'],
    })
    expect(created.status).toBe(200)
    expect(created.text).not.toContain('<b>bot</b>')
    const id = /id="client-id" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!
    const secret = /id="client-secret" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!
    const listed = await b.get('/admin/oauth-clients')
    expect(listed.text).toContain(id)
    expect(listed.text).toContain('https://app.example/cb, http://127.0.0.1:8765/cb')
    expect(listed.text).not.toContain(secret)

    const token = await t.app.handle(
      new Request('http://localhost:8080/oauth2/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
      }),
    )
    expect(token.status).toBe(200)
    expect((await token.json()).scope).toBe('contacts:read analytics:read')

    const confirm = await b.get(`/admin/oauth-clients/${id}/delete`)
    expect(confirm.status).toBe(200)
    b.csrf = csrfOf(confirm.text)
    const deleted = await b.post(`/admin/oauth-clients/${id}/delete`)
    expect(deleted.status).toBe(303)
    expect((await b.get('/admin/oauth-clients')).text).toContain('its tokens no longer work')
  })

  test('a bad redirect URI or no scope is shown on the form (422), nothing registered', async () => {
    const b = await owner()
    await b.get('/admin/oauth-clients/new')
    const res = await b.post('/admin/oauth-clients', {
      name: 'Bad',
      redirect_uris: 'http://app.example/cb',
      scopes: [],
    })
    expect(res.status).toBe(422)
    expect(res.text).toContain('loopback')
    expect(
      (await t.call('GET', '/api/v1/oauth-clients')).body.data.map((c: { name: string }) => c.name),
    ).not.toContain('Bad')
  })

  test('members do not manage OAuth clients', async () => {
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.get('/admin/oauth-clients')).status).toBe(403)
  })
})
