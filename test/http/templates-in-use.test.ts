import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRun } from '../../src/db/raw'
import { createTestApp } from '../helpers/app'
import { journeyTenant } from '../helpers/journey'

// DELETE /api/v1/templates/{id} refuses while something may still render the template: 409
// CONFLICT naming the record and its state (details.used_by lists them all). One row per kind of
// user and state; the state is set on the row directly (the transitions are tested elsewhere:
// this table is about which states count). Finished campaigns and archived flows do not block.

const t = await createTestApp()
const acme = await journeyTenant(t, 'Acme')

let n = 0
const template = async () =>
  (await acme.call('POST', '/api/v1/templates', { name: `T${++n}`, subject: 'Hi', body_text: 'Hello' }))
    .id as string

type Kind = 'campaign' | 'journey' | 'sequence'

async function userOf(kind: Kind, templateId: string): Promise<string> {
  if (kind === 'campaign')
    return (await acme.call('POST', '/api/v1/campaigns', { name: 'C', template_id: templateId })).id
  if (kind === 'journey')
    return (
      await acme.call('POST', '/api/v1/journeys', {
        name: 'J',
        nodes: [
          { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
          { id: 'w', type: 'wait', duration: 'P1D', next: 's' },
          { id: 's', type: 'send', template_id: templateId },
        ],
      })
    ).id
  return (
    await acme.call('POST', '/api/v1/sequences', {
      name: 'S',
      steps: [
        { channel: 'email', subject: 'First', body_text: 'Hi', delay: 'PT0S' },
        { template_id: templateId, delay: 'P2D' },
      ],
    })
  ).id
}

const TABLE: Record<Kind, string> = { campaign: 'campaigns', journey: 'journeys', sequence: 'sequences' }
const setStatus = async (kind: Kind, id: string, status: string) =>
  await rawRun(t.ctx.db, sql`UPDATE ${sql.identifier(TABLE[kind])} SET status = ${status} WHERE id = ${id}`)

const del = (id: string, key = acme.key) => t.call('DELETE', `/api/v1/templates/${id}`, { key })

const rows: { kind: Kind; status: string; inUse: boolean }[] = [
  { kind: 'campaign', status: 'draft', inUse: true },
  { kind: 'campaign', status: 'scheduled', inUse: true },
  { kind: 'campaign', status: 'sending', inUse: true },
  { kind: 'campaign', status: 'paused', inUse: true },
  { kind: 'campaign', status: 'sent', inUse: false },
  { kind: 'campaign', status: 'failed', inUse: false },
  { kind: 'campaign', status: 'cancelled', inUse: false },
  { kind: 'journey', status: 'draft', inUse: true },
  { kind: 'journey', status: 'active', inUse: true },
  { kind: 'journey', status: 'paused', inUse: true },
  { kind: 'journey', status: 'archived', inUse: false },
  { kind: 'sequence', status: 'draft', inUse: true },
  { kind: 'sequence', status: 'active', inUse: true },
  { kind: 'sequence', status: 'paused', inUse: true },
  { kind: 'sequence', status: 'archived', inUse: false },
]

describe('delete refuses while a campaign, journey or sequence may still use the template', () => {
  for (const row of rows) {
    test(`${row.kind} ${row.status} → ${row.inUse ? 409 : 200}`, async () => {
      const id = await template()
      const user = await userOf(row.kind, id)
      await setStatus(row.kind, user, row.status)
      const res = await del(id)
      const still = await t.call('GET', `/api/v1/templates/${id}`, { key: acme.key })
      if (row.inUse) {
        expect(res.status).toBe(409)
        expect(res.body.error.code).toBe('CONFLICT')
        expect(res.body.error.message).toContain(`is used by ${row.kind} ${user} (${row.status})`)
        expect(res.body.error.details).toEqual({
          used_by: [{ type: row.kind, id: user, name: expect.any(String), status: row.status }],
        })
        expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'))
        expect(still.status).toBe(200)
      } else {
        expect(res.status).toBe(200)
        expect(res.body.data).toEqual({ id, client_id: acme.clientId, deleted: true })
        expect(still.status).toBe(404)
      }
    })
  }

  test('an unused template is deleted; another template of the same flow does not block it', async () => {
    const used = await template()
    const free = await template()
    await userOf('journey', used)
    expect((await del(free)).status).toBe(200)
  })

  test('every user is in details.used_by; the message names three and counts the rest', async () => {
    const id = await template()
    const users = [
      await userOf('campaign', id),
      await userOf('campaign', id),
      await userOf('journey', id),
      await userOf('sequence', id),
      await userOf('sequence', id),
    ]
    const res = await del(id)
    expect(res.status).toBe(409)
    expect(res.body.error.details.used_by.map((u: { id: string }) => u.id)).toEqual(users)
    expect(res.body.error.message).toMatch(/ and 2 more; /)
    // Once each is finished or archived, the delete goes through.
    await setStatus('campaign', users[0]!, 'sent')
    await setStatus('campaign', users[1]!, 'cancelled')
    for (const j of [users[2]!]) await setStatus('journey', j, 'archived')
    for (const s of users.slice(3)) await setStatus('sequence', s, 'archived')
    expect((await del(id)).status).toBe(200)
  })

  test('a campaign moved to another template no longer blocks', async () => {
    const id = await template()
    const other = await template()
    const campaign = await userOf('campaign', id)
    expect((await del(id)).status).toBe(409)
    await acme.call('PATCH', `/api/v1/campaigns/${campaign}`, { template_id: other })
    expect((await del(id)).status).toBe(200)
  })

  test('the 409 is declared for the operation in /openapi.json', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    const ref = doc.paths['/api/v1/templates/{id}'].delete.responses['409'].$ref.split('/').pop()
    const schema = doc.components.responses[ref].content['application/json'].schema
    expect(schema.anyOf).toContainEqual({ $ref: '#/components/schemas/InUseError' })
    // Only deletes that refuse so declare it: a contact create keeps CONFLICT's existing_id shape.
    const other = doc.paths['/api/v1/contacts'].post.responses['409'].$ref.split('/').pop()
    expect(doc.components.responses[other].content['application/json'].schema.anyOf).not.toContainEqual({
      $ref: '#/components/schemas/InUseError',
    })
    expect(doc.components.schemas.InUseError.properties.error.properties.details.required).toEqual([
      'used_by',
    ])
  })
})
