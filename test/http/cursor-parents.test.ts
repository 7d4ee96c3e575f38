import { describe, expect, test } from 'bun:test'
import { adminBody } from '../helpers/admin-api'
import { createTestApp } from '../helpers/app'

// A cursor pages the list that issued it (docs/api.md, Pagination): for the lists
// under a parent (a list's members, a journey's or a sequence's enrollments, a contact's
// activity), that is the parent's list. List A's cursor given to list B was read as a position
// in B, so B's page started somewhere in the middle without a word.

const t = await createTestApp()
const acme = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId: acme })
const call = await adminBody(t, key)
const listA = (await call('POST', '/api/v1/lists', { name: 'A' })).data
const listB = (await call('POST', '/api/v1/lists', { name: 'B' })).data
const contacts: string[] = []
for (let i = 0; i < 4; i++)
  contacts.push(
    (await call('POST', '/api/v1/contacts', { email: `ann${i}@acme.io`, list_ids: [listA.id, listB.id] }))
      .data.id,
  )
const template = (
  await call('POST', '/api/v1/templates', { name: 'T', subject: 'Hi', body_html: '<p>Hi</p>' })
).data
const sender = (await call('POST', '/api/v1/senders', { from_email: 'me@acme.io', from_name: 'Me' })).data
const sequence = async (name: string) => {
  const s = (
    await call('POST', '/api/v1/sequences', {
      name,
      sender_id: sender.id,
      steps: [{ channel: 'email', template_id: template.id, delay: 'P1D' }],
    })
  ).data
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  await call('POST', `/api/v1/sequences/${s.id}/enroll`, { list_id: listA.id })
  return s.id as string
}
const [seqA, seqB] = [await sequence('S1'), await sequence('S2')]

const cursorOf = async (path: string) => {
  const c = (await call('GET', `${path}?limit=1`)).pagination.next_cursor as string
  expect(c).toEqual(expect.any(String))
  return encodeURIComponent(c)
}

describe("a cursor of one parent's list is refused by another's", () => {
  for (const [name, a, b] of [
    ['list members', `/api/v1/lists/${listA.id}/contacts`, `/api/v1/lists/${listB.id}/contacts`],
    [
      'sequence enrollments',
      `/api/v1/sequences/${seqA}/enrollments`,
      `/api/v1/sequences/${seqB}/enrollments`,
    ],
  ] as const)
    test(name, async () => {
      const cursor = await cursorOf(a)
      // Its own list still pages with it.
      const own = await t.call('GET', `${a}?limit=1&cursor=${cursor}`, { key })
      expect(own.status).toBe(200)
      expect(own.body.data).toHaveLength(1)
      const other = await t.call('GET', `${b}?limit=1&cursor=${cursor}`, { key })
      expect(other.status).toBe(422)
      expect(other.body.error.details).toEqual([
        { field: 'cursor', message: 'is not a cursor this server issued for this list' },
      ])
    })
})
