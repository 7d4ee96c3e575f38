import { describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { consents, listMembers, lists } from '../../../src/db/schema'
import {
  addMembers,
  confirmMemberships,
  purgeUnconfirmed,
  removeMembers,
  unsubscribeMembers,
} from '../../../src/services/lists/membership'
import { createTestApp } from '../../helpers/app'
import { tenant } from '../../helpers/campaign'

const t = await createTestApp()
const DAY = 86_400_000

async function setup() {
  const { clientId, call } = await tenant(t)
  const list = await call('POST', '/api/v1/lists', { name: 'News', opt_in: 'double' })
  const ids: string[] = []
  for (let i = 0; i < 4; i++)
    ids.push((await call('POST', '/api/v1/contacts', { email: `m${i}@acme.io` })).id)
  return { clientId, list, ids }
}

const counts = async (listId: string) =>
  (
    await t.ctx.db
      .select({ confirmed: lists.memberCount, unconfirmed: lists.unconfirmedCount })
      .from(lists)
      .where(eq(lists.id, listId))
      .limit(1)
  )[0]
const statusOf = async (listId: string, contactId: string) =>
  (
    await t.ctx.db
      .select({ s: listMembers.status })
      .from(listMembers)
      .where(and(eq(listMembers.listId, listId), eq(listMembers.contactId, contactId)))
      .limit(1)
  )[0]?.s
const consentsOf = async (contactId: string) =>
  await t.ctx.db.select().from(consents).where(eq(consents.contactId, contactId))

describe('membership status keeps both counts exact', () => {
  test('unconfirmed → confirmed → unsubscribed → revived, each step counted once', async () => {
    const { list, ids } = await setup()
    const now = t.ctx.clock.now()
    const [a, b, c] = ids as [string, string, string]
    expect(await addMembers(t.ctx, list.id, [a, b, c], now, { status: 'unconfirmed' })).toEqual([a, b, c])
    expect(await counts(list.id)).toEqual({ confirmed: 0, unconfirmed: 3 })
    // Asking again for an unconfirmed member changes nothing.
    expect(await addMembers(t.ctx, list.id, [a], now, { status: 'unconfirmed' })).toEqual([])
    expect(await confirmMemberships(t.ctx, a, [list.id], now)).toEqual([list.id])
    // A second confirmation is no change.
    expect(await confirmMemberships(t.ctx, a, [list.id], now)).toEqual([])
    expect(await counts(list.id)).toEqual({ confirmed: 1, unconfirmed: 2 })
    // A confirmed member is not demoted by an unconfirmed add.
    expect(await addMembers(t.ctx, list.id, [a], now, { status: 'unconfirmed' })).toEqual([])
    expect(await unsubscribeMembers(t.ctx.db, list.id, [a, b], now)).toEqual([a, b])
    expect(await counts(list.id)).toEqual({ confirmed: 0, unconfirmed: 1 })
    expect(await statusOf(list.id, a)).toBe('unsubscribed')
    // A re-import does not take back someone who left; an explicit add does.
    expect(await addMembers(t.ctx, list.id, [a], now, { revive: false })).toEqual([])
    expect(await addMembers(t.ctx, list.id, [a, c], now)).toEqual([a, c])
    expect(await counts(list.id)).toEqual({ confirmed: 2, unconfirmed: 0 })
    expect(await removeMembers(t.ctx.db, list.id, [a, b, c], now)).toEqual([a, c])
    expect(await counts(list.id)).toEqual({ confirmed: 0, unconfirmed: 0 })
  })

  test('list.joined fires for whoever becomes confirmed, not for the unconfirmed', async () => {
    const { list, ids } = await setup()
    const seen: string[][] = []
    const bound = t.ctx.hooks.listJoined.bind((e) => void seen.push([...e.contactIds]), {
      wants: (id) => id === list.id,
    })
    const now = t.ctx.clock.now()
    await addMembers(t.ctx, list.id, [ids[0]!], now, { status: 'unconfirmed' })
    expect(seen).toEqual([])
    await confirmMemberships(t.ctx, ids[0]!, [list.id], now)
    await addMembers(t.ctx, list.id, [ids[1]!], now)
    expect(seen).toEqual([[ids[0]!], [ids[1]!]])
    t.ctx.hooks.listJoined.unbind(bound)
  })

  test('consent rows are written only for changes, with their origin', async () => {
    const { list, ids } = await setup()
    const now = t.ctx.clock.now()
    const origin = {
      source: 'form' as const,
      formId: 'f1',
      ip: '203.0.113.9',
      userAgent: 'UA',
      consentText: 'Yes',
    }
    await addMembers(t.ctx, list.id, [ids[0]!], now, { status: 'unconfirmed', consent: origin })
    await addMembers(t.ctx, list.id, [ids[0]!], now, { status: 'unconfirmed', consent: origin })
    await confirmMemberships(t.ctx, ids[0]!, [list.id], now + 1, { source: 'form', formId: 'f1' })
    await unsubscribeMembers(t.ctx.db, list.id, [ids[0]!], now + 2, { source: 'preferences' })
    await unsubscribeMembers(t.ctx.db, list.id, [ids[0]!], now + 3, { source: 'preferences' })
    expect((await consentsOf(ids[0]!)).map((r) => [r.action, r.source, r.listId])).toEqual([
      ['subscribed', 'form', list.id],
      ['confirmed', 'form', list.id],
      ['unsubscribed', 'preferences', list.id],
    ])
    expect((await consentsOf(ids[0]!))[0]).toMatchObject({
      ip: '203.0.113.9',
      userAgent: 'UA',
      consentText: 'Yes',
    })
  })

  test('the purge drops unconfirmed members older than the cut-off and nothing else', async () => {
    const { list, ids } = await setup()
    const now = t.ctx.clock.now()
    await addMembers(t.ctx, list.id, [ids[0]!, ids[1]!], now - 31 * DAY, { status: 'unconfirmed' })
    await addMembers(t.ctx, list.id, [ids[2]!], now - 29 * DAY, { status: 'unconfirmed' })
    await addMembers(t.ctx, list.id, [ids[3]!], now - 40 * DAY)
    expect(await purgeUnconfirmed(t.ctx.db, now - 30 * DAY, now)).toBe(2)
    expect(await counts(list.id)).toEqual({ confirmed: 1, unconfirmed: 1 })
    expect(await purgeUnconfirmed(t.ctx.db, now - 30 * DAY, now)).toBe(0)
  })
})
