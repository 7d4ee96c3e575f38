import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { makeUser, PORTAL_ENV, signIn } from './portal-helpers'

// /admin/agents: the operator's decision on pending agent registrations (DESIGN §5, §9a) —
// approve for a chosen workspace with trimmed scopes, or deny — over HTTP, then the agent's
// claim over REST sees the decision.

const t = await createTestApp({ env: PORTAL_ENV })

const register = async (client_name: string, scopes: string[]) => {
  const r = await t.call('POST', '/agent/auth/register', {
    key: null,
    body: { client_name, identity_type: 'anonymous', scopes },
  })
  expect(r.status).toBe(200)
  return r.body.data.registration_id as string
}
const claim = (registration_id: string) =>
  t.call('POST', '/agent/auth/claim', { key: null, body: { registration_id } })
const idOf = (html: string, name: string) =>
  new RegExp(`href="/admin/agents/([0-9a-f-]{36})">Review<span class="visually-hidden"> ${name}<`).exec(
    html,
  )?.[1]

describe('/admin/agents', () => {
  test('pending registrations listed; approve with a chosen client and trimmed scopes → the claim gets exactly those', async () => {
    const acme = await t.client('Acme')
    const handle = await register('Inbox helper', ['contacts:read', 'contacts:write', 'lists:read'])
    const owner = await signIn(t)

    const listed = await owner.get('/admin/agents')
    expect(listed.status).toBe(200)
    expect(listed.text).toContain('Inbox helper')
    expect(listed.text).toContain('contacts:read, contacts:write, lists:read')
    expect(listed.text).not.toContain(handle)
    const id = idOf(listed.text, 'Inbox helper')!
    expect(id).toBeDefined()

    const review = await owner.get(`/admin/agents/${id}`)
    expect(review.status).toBe(200)
    expect(review.text).toContain(`<option value="${acme}"`)
    // Nothing decided in advance: no workspace chosen, write scopes unticked, read scopes ticked.
    expect(review.text).toContain(`<option value="${acme}">`)
    expect(review.text).toContain('value="contacts:read" checked')
    expect(review.text).not.toContain('value="contacts:write" checked')

    // Nothing ticked: 422 with the form again, the registration still pending.
    const none = await owner.post(`/admin/agents/${id}/approve`, { client_id: acme })
    expect(none.status).toBe(422)
    expect(none.text).toContain('scopes')
    expect((await claim(handle)).status).toBe(409)

    const approved = await owner.post(`/admin/agents/${id}/approve`, {
      client_id: acme,
      scopes: ['contacts:read', 'lists:read'],
    })
    expect(approved.status).toBe(303)
    expect(approved.location).toBe('/admin/agents')
    expect((await owner.get('/admin/agents')).text).toMatch(/role="status">Approved “Inbox helper”/)

    const claimed = await claim(handle)
    expect(claimed.status).toBe(200)
    expect(claimed.body.data).toMatchObject({ client_id: acme, scopes: ['contacts:read', 'lists:read'] })
    // Claimed: no longer waiting; the key is under API keys, marked as an agent's.
    expect((await owner.get('/admin/agents')).text).not.toContain('Inbox helper')
    await owner.post('/admin/workspace', { workspace: acme, next: '/admin/api-keys' })
    expect((await owner.get('/admin/api-keys')).text).toContain('Inbox helper <small>(agent)</small>')

    // Approving again is a refusal of the whole form.
    const again = await owner.post(`/admin/agents/${id}/approve`, { client_id: acme, scopes: ['lists:read'] })
    expect(again.status).toBe(409)
  })

  test('deny behind a confirmation page; the claim is then refused with status denied', async () => {
    const handle = await register('Scraper', ['contacts:read'])
    const owner = await signIn(t)
    const id = idOf((await owner.get('/admin/agents')).text, 'Scraper')!
    const confirm = await owner.get(`/admin/agents/${id}/deny`)
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('Deny “Scraper”?')
    expect((await claim(handle)).body.error.details.status).toBe('pending')

    const denied = await owner.post(`/admin/agents/${id}/deny`)
    expect(denied.status).toBe(303)
    expect((await owner.get('/admin/agents')).text).toMatch(
      /role="status">Denied the registration of “Scraper”/,
    )
    const refused = await claim(handle)
    expect(refused.status).toBe(409)
    expect(refused.body.error.details).toEqual({ status: 'denied', allowed_from: ['approved'] })
  })

  test('members and viewers may not review registrations', async () => {
    const handle = await register('Sneaky', ['contacts:read'])
    const owner = await signIn(t)
    const id = idOf((await owner.get('/admin/agents')).text, 'Sneaky')!
    for (const role of ['member', 'viewer'] as const) {
      const user = await signIn(t, await makeUser(t, { role, clients: [t.defaultClientId] }))
      expect((await user.get('/admin/agents')).status).toBe(403)
      const post = await user.post(`/admin/agents/${id}/approve`, {
        client_id: t.defaultClientId,
        scopes: ['contacts:read'],
      })
      expect(post.status).toBe(403)
      expect((await user.get('/admin')).text).not.toContain('href="/admin/agents"')
    }
    expect((await claim(handle)).body.error.details.status).toBe('pending')
  })
})
