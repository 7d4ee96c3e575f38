import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { withActor } from '../../../src/context'
import { rawRows } from '../../../src/db/raw'
import { ServiceError } from '../../../src/errors'
import { userActor } from '../../../src/services/actors/actor'
import { outboxVerb } from '../../../src/services/messages/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'

// The portal's outbox viewer (messages.outbox): pages newest first through its cursor, each
// message once, and a cursor is bound to the filters of the request that returned it.

const t = await createTestApp({ env: { HERALD_ADMIN_PASSWORD: 'owner-password-123' } })
const acme = await t.client('Acme')
const setup = await t.key({ scopes: ['admin:*'], clientId: acme })
const [owner] = (await rawRows<{ id: string }>(
  t.ctx.db,
  sql`SELECT id FROM users WHERE email = 'admin@localhost'`,
)) as [{ id: string }]
const ctx = withActor(
  t.ctx,
  userActor({ id: owner.id, role: 'owner', clients: null, workspace: acme }),
  'test',
)

const contact = (await t.call('POST', '/api/v1/contacts', { key: setup, body: { email: 'ann@example.com' } }))
  .body.data
const sent: string[] = []
for (let i = 0; i < 5; i++) {
  const r = await t.call('POST', '/api/v1/messages', {
    key: setup,
    body: { contact_id: contact.id, subject: `Note ${i}`, body_text: 'Hello' },
  })
  expect(r.status).toBe(200)
  sent.push(r.body.data.id)
}

describe('messages.outbox', () => {
  test('pages newest first, every message once; the last page has no cursor', async () => {
    const seen: { id: string }[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await invoke(outboxVerb, ctx, { limit: 2, cursor, channel: 'email' })
      seen.push(...page.data.map((m) => ({ id: m.id })))
      cursor = page.next_cursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen.map((m) => m.id)).toEqual([...sent].reverse())
  })

  test('a cursor sent with other filters is refused on cursor', async () => {
    const first = await invoke(outboxVerb, ctx, { limit: 2, channel: 'email' })
    expect(first.next_cursor).not.toBeNull()
    const refused = await invoke(outboxVerb, ctx, { limit: 2, cursor: first.next_cursor!, to: 'ann' }).then(
      () => null,
      (err) => err,
    )
    expect(refused).toBeInstanceOf(ServiceError)
    expect((refused as ServiceError).code).toBe('VALIDATION_FAILED')
    expect(JSON.stringify((refused as ServiceError).details)).toContain('was issued for another query')
  })
})
