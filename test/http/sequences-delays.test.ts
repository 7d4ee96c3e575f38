import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'
import { detailFields } from '../helpers/scenarios'

// A step's delay is bounded: a wait too long for a date (P999999999999W) once made enroll and
// the enrollments list answer 500 (the due time was no valid instant). It is refused on save
// (422 naming steps[i].delay), and so is an over-long {days, hours, minutes}.

const t = await createTestApp()
const acme = await journeyTenant(t, 'Acme')
const first = { subject: 'Hello', body_text: 'Hi' }

describe('step delay bounds', () => {
  for (const delay of ['P999999999999W', 'PT99999999999999999999S', 'P366D', { days: 365, hours: 24 }]) {
    test(`${JSON.stringify(delay)} → 422 on steps[i].delay`, async () => {
      const r = await t.call('POST', '/api/v1/sequences', {
        key: acme.key,
        body: { name: 'S', steps: [first, { body_text: 'x', delay }] },
      })
      expect(r.status).toBe(422)
      expect(detailFields(r.body)).toEqual(['steps[1].delay'])
      expect(r.body.error.details[0].message).toBe('must be at most 365 days')
    })
  }

  test('365 days is taken, and enrolling answers its first run time', async () => {
    const s = await acme.call('POST', '/api/v1/sequences', {
      name: 'S',
      steps: [{ ...first, delay: 'P365D' }],
    })
    await acme.call('POST', `/api/v1/sequences/${s.id}/activate`)
    const c = await acme.contact('year@example.com')
    const r = await t.call('POST', `/api/v1/sequences/${s.id}/enroll`, {
      key: acme.key,
      body: { contact_ids: [c] },
    })
    expect(r.status).toBe(200)
    expect(r.body.data.enrolled).toBe(1)
    const runs = await t.call('GET', `/api/v1/sequences/${s.id}/enrollments`, { key: acme.key })
    expect(runs.status).toBe(200)
    expect(Date.parse(runs.body.data[0].next_run_at) - Date.parse(runs.body.data[0].entered_at)).toBe(
      365 * 24 * 3600 * 1000,
    )
  })
})

test('an empty {} delay → 422 on steps[i].delay (give days, hours or minutes)', async () => {
  const r = await t.call('POST', '/api/v1/sequences', {
    key: acme.key,
    body: { name: 'S', steps: [{ ...first, delay: {} }] },
  })
  expect(r.status).toBe(422)
  expect(detailFields(r.body)).toEqual(['steps[0].delay'])
  expect(r.body.error.details[0].message).toBe('must have at least 1 member')
})

test('step messages name the channel with the right article (an sms step, a voice step)', async () => {
  const r = await t.call('POST', '/api/v1/sequences', {
    key: acme.key,
    body: {
      name: 'S',
      steps: [
        { channel: 'sms', subject: 'x' },
        { channel: 'voice', body_html: '<p>x</p>' },
        { channel: 'email', template_id: acme.templates.sms.id },
      ],
    },
  })
  expect(r.status).toBe(422)
  const said = Object.fromEntries(
    r.body.error.details.map((d: { field: string; message: string }) => [d.field, d.message]),
  )
  expect(said['steps[0].subject']).toBe('an sms step has no subject')
  expect(said['steps[0].body_text']).toBe('an sms step needs body_text')
  expect(said['steps[1].body_text']).toBe('a voice step needs body_text')
  expect(said['steps[2].template_id']).toBe('is an sms template; the step sends email')
})
