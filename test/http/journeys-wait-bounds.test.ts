import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'
import { detailFields } from '../helpers/scenarios'

// A wait longer than any date (P999999999999W) was saved and activated; the journeys worker
// then failed on every pass (RangeError: Invalid Date) for every tenant. A wait's duration and
// a wait_for_event's timeout are at most 365 days (422 naming the node), like sequence delays.

const t = await createTestApp()
const acme = await journeyTenant(t, 'Acme')
const trigger = { id: 't', type: 'trigger', trigger: 'manual', next: 'w' }

describe('journey wait bounds', () => {
  for (const [label, node, field] of [
    ['wait duration', { id: 'w', type: 'wait', duration: 'P999999999999W' }, 'nodes[w].duration'],
    ['wait of 366 days', { id: 'w', type: 'wait', duration: 'P366D' }, 'nodes[w].duration'],
    [
      'wait_for_event timeout',
      { id: 'w', type: 'wait_for_event', event: 'opened', timeout: 'PT99999999999999999999S' },
      'nodes[w].timeout',
    ],
  ] as const) {
    test(`${label} → 422 on ${field}`, async () => {
      const r = await t.call('POST', '/api/v1/journeys', {
        key: acme.key,
        body: { name: 'J', nodes: [trigger, node] },
      })
      expect(r.status).toBe(422)
      expect(detailFields(r.body)).toContain(field)
      const said = r.body.error.details.find((d: { field: string }) => d.field === field)?.message
      expect(said).toBe('must be at most 365 days')
    })
  }

  test('a wait of 365 days is taken', async () => {
    const r = await t.call('POST', '/api/v1/journeys', {
      key: acme.key,
      body: { name: 'J', nodes: [trigger, { id: 'w', type: 'wait', duration: 'P365D' }] },
    })
    expect(r.status).toBe(200)
  })
})
