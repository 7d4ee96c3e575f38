import { expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'
import { detailFields } from '../helpers/scenarios'

// Every list refuses a filter id that is no id, and a cursor it did not issue, the same way: a
// 422 naming the parameter (one idFilter and one cursorPosition for all of them).

const t = await createTestApp()
const acme = await journeyTenant(t, 'Acme')
const journey = await acme.call('POST', '/api/v1/journeys', {
  name: 'J',
  nodes: [{ id: 't', type: 'trigger', trigger: 'manual' }],
})
const sequence = await acme.call('POST', '/api/v1/sequences', {
  name: 'S',
  steps: [{ subject: 'Hi', body_text: 'Hi' }],
})

const cases: [path: string, field: string][] = [
  [`/api/v1/journeys/${journey.id}/enrollments?contact_id=nope`, 'contact_id'],
  [`/api/v1/sequences/${sequence.id}/enrollments?contact_id=nope`, 'contact_id'],
  ['/api/v1/messages?contact_id=nope', 'contact_id'],
  ['/api/v1/messages?campaign_id=nope', 'campaign_id'],
  ['/api/v1/messages?journey_id=nope', 'journey_id'],
  ['/api/v1/messages?sequence_id=nope', 'sequence_id'],
  ['/api/v1/replies?campaign_id=nope', 'campaign_id'],
  ['/api/v1/replies?contact_id=nope', 'contact_id'],
  [`/api/v1/journeys/${journey.id}/enrollments?cursor=forged.cursor`, 'cursor'],
  [`/api/v1/sequences/${sequence.id}/enrollments?cursor=forged.cursor`, 'cursor'],
  ['/api/v1/messages?cursor=forged.cursor', 'cursor'],
  ['/api/v1/contacts?cursor=forged.cursor', 'cursor'],
  [`/api/v1/lists/${acme.list.id}/contacts?cursor=forged.cursor`, 'cursor'],
]

test.each(cases)('GET %s → 422 on %s', async (path, field) => {
  const r = await t.call('GET', path, { key: acme.key })
  expect(r.status).toBe(422)
  expect(r.body.error.code).toBe('VALIDATION_FAILED')
  expect(detailFields(r.body)).toEqual([field])
})

test('a contact id that is an id but matches nobody filters to an empty page', async () => {
  const r = await t.call(
    'GET',
    `/api/v1/journeys/${journey.id}/enrollments?contact_id=${crypto.randomUUID()}`,
    {
      key: acme.key,
    },
  )
  expect(r.status).toBe(200)
  expect(r.body.data).toEqual([])
})
