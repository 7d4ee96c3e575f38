import { expect } from 'bun:test'
import type { TestApp } from './app'
import { eventually } from './receiver'

/**
 * A fresh tenant with an admin key, a list of one contact per address (first names P0, P1…)
 * and a draft campaign over it (`campaign` members override the defaults).
 */
export async function campaignTenant(t: TestApp, emails: string[], campaign: Record<string, unknown> = {}) {
  const clientId = t.client('Acme')
  const key = t.key({ scopes: ['admin:*'], clientId })
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await t.call(method, path, { key, body })
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
    return r.body.data
  }
  const list = await call('POST', '/api/v1/lists', { name: 'L' })
  const contacts: Record<string, string> = {}
  for (const [i, email] of emails.entries())
    contacts[email] = (
      await call('POST', '/api/v1/contacts', { email, first_name: `P${i}`, list_ids: [list.id] })
    ).id
  const c = await call('POST', '/api/v1/campaigns', {
    name: 'Launch week',
    list_id: list.id,
    subject: 'Hello {{ contact.first_name }}',
    body_html:
      '<html><body><p>Hi {{ contact.first_name }}</p><a href="https://example.com/a?x=1&amp;y=2">A</a> <a href="mailto:x@y.z">mail</a> <a href="{{ unsubscribe_url }}">unsubscribe</a></body></html>',
    ...campaign,
  })
  const status = async () => (await call('GET', `/api/v1/campaigns/${c.id}`)).status as string
  const launchAndWait = async () => {
    await call('POST', `/api/v1/campaigns/${c.id}/launch`, { confirm: true })
    await eventually(async () => expect(await status()).toBe('sent'))
  }
  return { clientId, key, list, contacts, campaign: c, call, status, launchAndWait }
}
