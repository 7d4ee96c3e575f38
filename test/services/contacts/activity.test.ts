import { expect, test } from 'bun:test'
import { withActor } from '../../../src/context'
import { keyActor } from '../../../src/services/actors/actor'
import { contactActivityVerb } from '../../../src/services/contacts/verbs'
import { recordEvent } from '../../../src/services/events/record'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'

// A contact's timeline pages newest first by (occurred_at, seq): two events at the same instant
// are told apart by seq, the last page has no cursor, and the timeline has no total.

const t = await createTestApp()
const acme = await t.client('Acme')
const contact = (
  await t.call('POST', `/api/v1/contacts?client_id=${acme}`, { body: { email: 'tl@x.example' } })
).body.data.id as string
const base = Date.parse('2026-11-23T10:00:00.000Z')
// Five events, the last two at the same instant.
for (const at of [0, 1000, 2000, 3000, 3000])
  await recordEvent(t.ctx, {
    clientId: acme,
    type: 'email.opened',
    occurredAt: base + at,
    contactId: contact,
    data: { n: at },
  })

test('the timeline walks every event newest first, two a page, with no total', async () => {
  const actor = keyActor({ id: 'key-acme', clientId: acme, scopes: ['contacts:read'], tier: 'unlimited' })
  const ctx = withActor(t.ctx, actor, 'timeline')
  const seen: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await invoke(contactActivityVerb, ctx, { id: contact, limit: 2, cursor })
    expect(page.pagination).not.toHaveProperty('total')
    expect(page.pagination.limit).toBe(2)
    expect(page.pagination.has_more).toBe(page.pagination.next_cursor !== null)
    seen.push(...page.data.map((e) => e.occurred_at))
    cursor = page.pagination.next_cursor ?? undefined
    pages++
  } while (cursor && pages < 10)
  expect(pages).toBe(3)
  expect(seen).toEqual([3000, 3000, 2000, 1000, 0].map((ms) => new Date(base + ms).toISOString()))
})
