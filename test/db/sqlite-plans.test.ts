import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { withActor } from '../../src/context'
import { DIALECT } from '../../src/db/dialect'
import { keyActor } from '../../src/services/actors/actor'
import { browseContactsVerb, contactActivityVerb, eraseContactVerb } from '../../src/services/contacts/verbs'
import { recordBounce } from '../../src/services/messages/activity'
import { invoke } from '../../src/services/verbs/invoke'
import { sequenceApp } from '../helpers/sequence'

// SQLite keeps no statistics here, so a query that names both a client and something more
// selective (a contact, a list, a message, ids) may be planned through the client's index and
// read all of that client's rows: 22–110 ms each at 200,000 rows where the selective index
// reads a few. The statements the product runs on these paths are caught as they are prepared
// and their plans read: each goes through the selective index.

const prepared = new Set<string>()
const original = { prepare: Database.prototype.prepare, query: Database.prototype.query }
if (DIALECT === 'sqlite') {
  const catching = <F extends (this: Database, sql: string, ...rest: never[]) => unknown>(f: F) =>
    function (this: Database, sql: string, ...rest: never[]) {
      prepared.add(sql)
      return f.call(this, sql, ...rest)
    }
  Database.prototype.prepare = catching(original.prepare) as typeof original.prepare
  Database.prototype.query = catching(original.query) as typeof original.query
}
afterAll(() => {
  Database.prototype.prepare = original.prepare
  Database.prototype.query = original.query
})

test.skipIf(DIALECT !== 'sqlite')(
  'per-contact, per-list, per-message and transactional reads go through their own indexes',
  async () => {
    const s = await sequenceApp()
    afterAll(() => s.close())
    const sqlite = s.t.ctx.store.sqlite
    const people = [await s.contact('ann@example.com'), await s.contact('bob@example.com')]
    await s.call('POST', `/api/v1/lists/${s.list.id}/contacts`, { contact_ids: people })

    // A transactional message and a sequence's, sent; a bounce reported twice for one of them.
    await s.call('POST', '/api/v1/messages', { contact_id: people[0], subject: 'Hi', body_text: 'Hello' })
    const sequence = await s.sequence({ steps: [{ subject: 'Intro', body_text: 'Hi', delay: 'PT0S' }] })
    expect(await s.enroll(sequence, people)).toMatchObject({ enrolled: 2 })
    await s.settle()
    const sent = await s.call('GET', `/api/v1/messages?contact_id=${people[1]}`)
    expect(sent).toHaveLength(1)
    expect(await s.call('GET', '/api/v1/messages?status=delivered')).toHaveLength(3)
    const row = (await s.t.ctx.db.query.messages.findFirst({
      where: (m, { eq }) => eq(m.contactId, people[1]!),
    }))!
    const hard = { type: 'hard', statusCode: '5.1.1', diagnostic: 'no such user' } as const
    await recordBounce(s.t.ctx, row, hard, s.clock.now())
    await recordBounce(s.t.ctx, { ...row, bouncedAt: s.clock.now() }, hard, s.clock.now())
    // The portal's timeline of a contact, as the tenant's user sees it.
    const tenantUser = keyActor({ id: 'plans', clientId: s.clientId, scopes: ['admin:*'], tier: 'unlimited' })
    await invoke(contactActivityVerb, withActor(s.t.ctx, tenantUser, 'plans'), { id: people[0]!, limit: 25 })
    await s.call('GET', `/api/v1/lists/${s.list.id}/contacts`)
    await invoke(browseContactsVerb, withActor(s.t.ctx, tenantUser, 'plans'), {
      list_id: s.list.id,
      status: 'subscribed',
    })

    // A contact's replies, read by the API and blanked by an erasure.
    await s.call('GET', `/api/v1/replies?contact_id=${people[0]}`)
    await invoke(eraseContactVerb, withActor(s.t.ctx, tenantUser, 'plans'), { id: people[1]! })

    const planOf = (pattern: RegExp) => {
      const statements = [...prepared].filter((q) => pattern.test(q))
      expect(statements.length).toBeGreaterThan(0)
      return statements.map((q) =>
        sqlite
          .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${q}`)
          .all()
          .map((r) => r.detail)
          .join('\n'),
      )
    }
    // The transactional queue's claim and its next due time, past queued journey messages.
    for (const plan of planOf(
      /FROM messages .*campaign_id IS NULL AND source_id IS NULL AND status = 'queued'/s,
    ))
      expect(plan).toContain('messages_transactional_idx')
    // Whether a bounced message's hard bounce is recorded: its contact's events.
    for (const plan of planOf(/FROM events WHERE .*type = 'email\.bounced'.*bounce_type/s))
      expect(plan).toContain('events_contact_type_idx')
    // A contact's activity, and a contact's messages.
    for (const plan of planOf(/from "events" where \("events"\."contact_id" = \?/))
      expect(plan).toContain('events_contact_type_idx')
    for (const plan of planOf(/from "messages" where .*"messages"\."contact_id" = \?/s))
      expect(plan).toContain('messages_contact_idx')
    // Without a contact, a client's messages are its own index's: never a walk of everyone's.
    for (const plan of planOf(
      /from "messages" where \("messages"\."client_id" = \? and "messages"\."status" = \?\)/,
    ))
      expect(plan).toContain('messages_client_idx (client_id=?)')
    // A list's members page and its count by status: driven by the list, not the client's contacts.
    for (const plan of [
      ...planOf(/from "list_members" inner join "contacts"/),
      ...planOf(/FROM list_members JOIN contacts .*contacts\.status =/s),
    ]) {
      expect(plan.split('\n').find((step) => /^(SCAN|SEARCH) /.test(step))).toMatch(/list_members/)
      expect(plan).not.toMatch(/INDEX \w+ \(client_id=\?\)/)
    }
    for (const plan of [
      ...planOf(/UPDATE replies SET .* WHERE contact_id = \?/s),
      ...planOf(/from "replies" where .*"replies"\."contact_id" = \?/s),
    ])
      expect(plan).toContain('replies_contact_idx')
    // An enroll call's count of the contacts it names: by their ids, not the client's contacts.
    for (const plan of planOf(/select count\(\*\), coalesce\(sum\(.*from "contacts"/s))
      expect(plan).not.toMatch(/INDEX \w+ \(client_id=\?\)/)
  },
  60_000,
)
