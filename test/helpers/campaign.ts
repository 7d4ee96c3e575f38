import { expect } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows } from '../../src/db/raw'
import { addToRollup, type RollupDeltas } from '../../src/db/rollups'
import type { MessageRow } from '../../src/db/schema'
import { mapInOrder } from '../../src/lib/in-order'
import { findMessage } from '../../src/services/messages/activity'
import type { TestApp } from './app'
import { eventually } from './receiver'

/** A fresh client, an admin key of its own, and `call`, which answers `data` or throws. */
export async function tenant(t: TestApp, name = 'Acme') {
  const clientId = await t.client(name)
  const key = await t.key({ scopes: ['admin:*'], clientId })
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await t.call(method, path, { key, body })
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
    return r.body.data
  }
  return { clientId, key, call }
}

/**
 * A fresh tenant with an admin key, a list of one contact per address (first names P0, P1…)
 * and a draft campaign over it (`campaign` members override the defaults).
 */
export async function campaignTenant(t: TestApp, emails: string[], campaign: Record<string, unknown> = {}) {
  const { clientId, key, call } = await tenant(t)
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

/**
 * Counts `d` (sent, bounced, complained…) in the client's email rollup at `at`: sending history
 * without messages, for the rates the deliverability checks and charts read.
 */
export async function countEmail(
  t: TestApp,
  clientId: string,
  at: number,
  d: RollupDeltas,
  campaignId: string | null = null,
): Promise<void> {
  await addToRollup(
    t.ctx.sqlite,
    { clientId, channel: 'email', campaignId, sourceKind: null, sourceId: null },
    at,
    d,
  )
}

/** A campaign's messages in send order, as the activity recorders (bounce, complaint…) take them. */
export async function messagesOf(t: TestApp, campaignId: string): Promise<MessageRow[]> {
  const rows = await rawRows<{ id: string }>(
    t.ctx.db,
    sql`SELECT id FROM messages WHERE campaign_id = ${campaignId} ORDER BY seq`,
  )
  return await mapInOrder(rows, async ({ id }) => (await findMessage(t.ctx, id))!)
}

/**
 * A tenant over five addresses `<prefix>0..4@x.example` whose campaign was sent (drained by
 * `worker`) on top of 996 sends counted an hour before `now` (1,001 in all), and whose second
 * campaign to the same list is launched and left sending: what the sending-health checks judge
 * and pause. `msgs` are the first campaign's messages, to record bounces and complaints on.
 */
export async function sentAndSending(
  t: TestApp,
  worker: { drain(): Promise<unknown> },
  prefix: string,
  now: number,
) {
  const a = await campaignTenant(
    t,
    [0, 1, 2, 3, 4].map((i) => `${prefix}${i}@x.example`),
  )
  countEmail(t, a.clientId, now - 60 * 60_000, { sent: 996 })
  await a.call('POST', `/api/v1/campaigns/${a.campaign.id}/launch`, { confirm: true })
  await worker.drain()
  const second = await a.call('POST', '/api/v1/campaigns', {
    name: 'Second',
    list_id: a.list.id,
    subject: 'S',
    body_html: '<p>x</p>',
  })
  await a.call('POST', `/api/v1/campaigns/${second.id}/launch`, { confirm: true })
  const secondStatus = async () => (await a.call('GET', `/api/v1/campaigns/${second.id}`)).status as string
  return { ...a, second: second as { id: string }, secondStatus, msgs: await messagesOf(t, a.campaign.id) }
}
