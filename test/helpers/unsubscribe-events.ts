import { expect } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { toPrefixedId } from '../../src/lib/ids'
import { fanOut } from '../../src/webhooks/fanout'
import type { TestApp } from './app'

/**
 * A client with one endpoint at `url` subscribed to contact.unsubscribed: `produce(count)` makes
 * that many events and fans them out (their contact ids, in event order); `contactOf` verifies a
 * received request and answers its contact id and webhook-id.
 */
export async function unsubscribeEvents(t: TestApp, url: string, name: string) {
  const clientId = await t.client(name)
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const hook = (
    await t.call('POST', '/api/v1/webhooks', { key, body: { url, events: ['contact.unsubscribed'] } })
  ).body.data
  const verifier = new Webhook(hook.secret)
  let n = 0
  const tag = name.toLowerCase().replace(/[^a-z0-9]/g, '')
  return {
    async produce(count: number): Promise<string[]> {
      const ids: string[] = []
      for (let i = 0; i < count; i++) {
        const c = (
          await t.call('POST', '/api/v1/contacts', { key, body: { email: `${tag}${++n}@example.com` } })
        ).body.data
        expect(
          (await t.call('PATCH', `/api/v1/contacts/${c.id}`, { key, body: { status: 'unsubscribed' } }))
            .status,
        ).toBe(200)
        ids.push(toPrefixedId('contact', c.id))
      }
      expect((await fanOut(t.ctx)).created).toBe(count)
      return ids
    },
    contactOf(r: { body: string; headers: Record<string, string> }) {
      const payload = verifier.verify(r.body, r.headers) as { id: string; data: { contact_id: string } }
      return { id: payload.id, contact: payload.data.contact_id }
    },
  }
}
