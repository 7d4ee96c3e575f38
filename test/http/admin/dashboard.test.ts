// The dashboard's "webhook endpoints failing" and "domains not verified" come from the list
// verbs' filters over every row, not from the first page filtered in the handler: a failing
// endpoint or a pending domain older than 200 healthy ones is still named. The filters are the
// portal's: REST lists what the spec names and takes no such query member.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { withActor } from '../../../src/context'
import { domains, webhooks } from '../../../src/db/schema'
import { newId } from '../../../src/lib/ids'
import { keyActor } from '../../../src/services/actors/actor'
import { filterDomainsVerb, listDomainsVerb } from '../../../src/services/domains/verbs'
import { invoke } from '../../../src/services/verbs/invoke'
import { filterWebhooksVerb, listWebhooksVerb } from '../../../src/services/webhooks/verbs'
import { createTestApp } from '../../helpers/app'
import { lazyOwner, PORTAL_ENV } from './portal-helpers'

setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const clientId = t.defaultClientId
const owner = lazyOwner(t)
const now = Date.now()
const HEALTHY = 205

// Rows written directly: ids are time-ordered, so the first written are the oldest, last in
// the newest-first list, beyond its 200th row.
async function hook(url: string, extra: Partial<typeof webhooks.$inferInsert> = {}) {
  await t.ctx.db.insert(webhooks).values({
    id: newId(),
    clientId,
    url,
    events: ['email.sent'],
    active: true,
    secret: 'x',
    createdAt: now,
    updatedAt: now,
    ...extra,
  })
}
async function domain(name: string, status: 'pending' | 'verified' | 'broken') {
  await t.ctx.db.insert(domains).values({
    id: newId(),
    clientId,
    domain: name,
    dkimSelector: 'herald',
    dkimPublicKey: 'p',
    dkimPrivateKey: 'k',
    status,
    createdAt: now,
    updatedAt: now,
  })
}

await hook('https://failing.example.com/hook', { failingSince: now - 60_000 })
await hook('https://gone.example.com/hook', { active: false, disabledReason: 'gone' })
await domain('pending.example.com', 'pending')
await domain('broken.example.com', 'broken')
for (let i = 0; i < HEALTHY; i++) {
  await hook(`https://ok${i}.example.com/hook`)
  await domain(`ok${i}.example.com`, 'verified')
}

describe('the dashboard’s failing webhooks and unverified domains', () => {
  test('rows older than the 200 newest are still named; healthy ones are not', async () => {
    const b = await owner()
    const dash = await b.get('/admin')
    expect(dash.status).toBe(200)
    expect(dash.text).toContain('https://failing.example.com/hook</a> — failing since')
    expect(dash.text).toContain('https://gone.example.com/hook</a> — disabled (gone)')
    expect(dash.text).toContain('pending.example.com</a> — pending')
    expect(dash.text).toContain('broken.example.com</a> — broken')
    expect(dash.text).not.toContain('ok0.example.com')
  })

  test('the verbs filter every row; without the filter every row is listed', async () => {
    const ctx = withActor(
      t.ctx,
      keyActor({ id: 'k', clientId, scopes: ['admin:*'], tier: 'unlimited' }),
      'dashboard-test',
    )
    const failing = await invoke(filterWebhooksVerb, ctx, { failing: true, limit: 200 })
    expect(failing.data.map((w) => w.url).sort()).toEqual([
      'https://failing.example.com/hook',
      'https://gone.example.com/hook',
    ])
    expect((await invoke(filterWebhooksVerb, ctx, { failing: false, limit: 1 })).pagination.total).toBe(
      HEALTHY,
    )
    expect((await invoke(listWebhooksVerb, ctx, { limit: 1 })).pagination.total).toBe(HEALTHY + 2)
    expect((await invoke(listDomainsVerb, ctx, { limit: 1 })).pagination.total).toBe(HEALTHY + 2)
    const unverified = await invoke(filterDomainsVerb, ctx, { verified: false, limit: 200 })
    expect(unverified.data.map((d) => d.domain).sort()).toEqual(['broken.example.com', 'pending.example.com'])
    expect((await invoke(filterDomainsVerb, ctx, { verified: true, limit: 1 })).pagination.total).toBe(
      HEALTHY,
    )
  })

  test('REST takes no such filter (the spec’s lists name only client_id, limit, cursor)', async () => {
    const key = await t.key({ scopes: ['admin:*'], clientId })
    for (const path of ['/api/v1/webhooks?failing=true', '/api/v1/domains?verified=false']) {
      const r = await t.call('GET', path, { key })
      expect(r.status).toBe(422)
      expect(r.body.error.details[0].field).toMatch(/failing|verified/)
    }
    expect(
      (
        await invoke(
          listWebhooksVerb,
          withActor(t.ctx, keyActor({ id: 'k', clientId, scopes: ['admin:*'], tier: 'unlimited' }), 'r'),
          { limit: 1 },
        )
      ).pagination.total,
    ).toBe(HEALTHY + 2)
  })
})
