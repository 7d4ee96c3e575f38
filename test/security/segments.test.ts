// Security rows for segment rules: a rule set's cost is bounded before it runs, a count past its
// time budget is cut off with a 422 while the server keeps answering, and realistic segments
// are sized as before. Run over real HTTP (the app on a port of its own) so that a count that
// held the event loop would show as a late health answer.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { clients, contacts, type SegmentRow, segments } from '../../src/db/schema'
import { inTransaction } from '../../src/db/transaction'
import { createTestApp } from '../helpers/app'
import { makeUser, PORTAL_ENV, signIn } from '../http/admin/portal-helpers'

// Seeding tens of thousands of contacts and a sign-in (argon2id) on a shared 2-core machine.
setDefaultTimeout(60_000)

/** The time budget of a count in these tests (the default is seconds; the knob lowers it). */
const BUDGET_MS = 300

const t = await createTestApp({ env: { ...PORTAL_ENV, HERALD_SEGMENT_COUNT_MS: String(BUDGET_MS) } })
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => t.app.handle(r) })
afterAll(() => server.stop(true))
const base = `http://127.0.0.1:${server.port}`
/** The tenant of the realistic segments (a few hundred contacts) and the one with many contacts. */
const clientId = t.defaultClientId
const bulkId = await t.client('Bulk')
const key = await t.key({ scopes: ['admin:*'] })

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

/**
 * The slowest health check while `work()` was in flight. The machine is shared, so one
 * scheduling hiccup can delay any answer past 100 ms: a delay the work itself causes happens on
 * every try, so this is the least of up to three tries.
 */
async function healthDuring<T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; ms: number }> {
  let best = await healthOnce(work())
  for (let i = 1; i < 3 && best.slowest >= 100; i++) {
    const next = await healthOnce(work())
    if (next.slowest < best.slowest) best = next
  }
  return best
}

/** How long each health check took while `work` was in flight (one every 20 ms). */
async function healthOnce<T>(work: Promise<T>): Promise<{ result: T; slowest: number; ms: number }> {
  const started = performance.now()
  let done = false
  const took: number[] = []
  const probe = (async () => {
    while (!done && took.length < 500) {
      const t0 = performance.now()
      const res = await fetch(`${base}/api/v1/health`)
      await res.text()
      took.push(performance.now() - t0)
      await Bun.sleep(20)
    }
  })()
  const result = await work.finally(() => {
    done = true
  })
  const ms = performance.now() - started
  await probe
  return { result, slowest: Math.max(...took), ms }
}

// Contacts whose custom field is long text (2.7 KB), so a `contains` over it costs real time: in
// the bulk tenant the slow rules below take well past the lowered budget. With 1 KB each they
// took about the budget on a quiet machine, and a slow count sometimes finished in time.
const CONTACTS = 300
const BULK_CONTACTS = 60_000
const bio = 'lorem ipsum dolor sit amet '.repeat(100)
async function seed(owner: string, n: number) {
  const clientNo = (await t.ctx.db.select().from(clients).where(eq(clients.id, owner)))[0]!.no
  await inTransaction(t.ctx.sqlite, async () => {
    for (let i = 0; i < n; i += 1_000)
      await t.ctx.db.insert(contacts).values(
        Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({
          id: Bun.randomUUIDv7(),
          clientId: owner,
          clientNo,
          email: `c${i + k}@bulk.example`,
          firstName: `Name${i + k}`,
          customFields: { bio: `${bio}${i + k}`, plan: (i + k) % 3 === 0 ? 'pro' : 'free' },
          createdAt: 1,
          updatedAt: 1,
        })),
      )
  })
}
await seed(clientId, CONTACTS)
await seed(bulkId, BULK_CONTACTS)

/** A legal rule set (within the cost budget) whose count is slow on the contacts above. */
const slowGroups = [
  {
    match: 'any',
    rules: [
      { field: 'custom.bio', operator: 'contains', value: 'zz-never' },
      { field: 'custom.bio', operator: 'ends_with', value: 'qq-never' },
      { field: 'custom.bio', operator: 'contains', value: 'yy-never' },
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((c) => ({
        field: 'custom.bio',
        operator: 'contains',
        value: `${c}-never`,
      })),
      { field: 'custom.plan', operator: 'contains', value: 'xx-never' },
      { field: 'first_name', operator: 'contains', value: 'ww-never' },
      { field: 'event', event: 'opened', operator: 'has', min_count: 3 },
      { field: 'event', event: 'clicked', operator: 'has', min_count: 2 },
    ],
  },
]

/**
 * A segment of the bulk tenant stored as it was saved earlier (when it was quick to count): a
 * fresh read connection's first scan of the bulk tenant can itself take longer than the budget.
 */
async function storedSegment(name: string, groups: unknown, size: number) {
  const id = Bun.randomUUIDv7()
  await t.ctx.db.insert(segments).values({
    id,
    clientId: bulkId,
    name,
    match: 'all',
    ruleGroups: groups as SegmentRow['ruleGroups'],
    estimatedSize: size,
    estimatedAt: 1,
    createdAt: 1,
    updatedAt: 1,
  })
  return id
}

/** 20 groups of 50 rules, each a leading-wildcard match or a correlated event count. */
const hostileGroups = Array.from({ length: 20 }, (_, g) => ({
  match: 'any',
  rules: Array.from({ length: 50 }, (_, r) =>
    r % 2 === 0
      ? { field: `custom.k${r}`, operator: 'contains', value: `%_${g}-${r}` }
      : { field: 'event', event: 'opened', operator: 'has_not', min_count: 1000 + r },
  ),
}))

describe('9. segment rules: cost and time bounded', () => {
  test('9. a rule set over the cost budget → 422 VALIDATION_FAILED naming rule_groups and the costliest group, on create and update; nothing stored', async () => {
    const created = await call('POST', `/api/v1/segments?client_id=${clientId}`, {
      name: 'Hostile',
      rule_groups: hostileGroups,
    })
    expect(created.status).toBe(422)
    expect(created.body.error.code).toBe('VALIDATION_FAILED')
    const detail = created.body.error.details.find((d: { field: string }) => d.field === 'rule_groups')
    expect(detail).toBeDefined()
    expect(detail.message).toContain('rule_groups[0]')
    expect(detail.message).toMatch(/simplify|fewer/)

    const ok = await call('POST', `/api/v1/segments?client_id=${clientId}`, {
      name: 'Fine',
      rule_groups: [{ match: 'all', rules: [{ field: 'email', operator: 'exists' }] }],
    })
    expect(ok.status).toBe(200)
    const patched = await call('PATCH', `/api/v1/segments/${ok.body.data.id}`, { rule_groups: hostileGroups })
    expect(patched.status).toBe(422)
    expect(patched.body.error.details.map((d: { field: string }) => d.field)).toContain('rule_groups')
    // Nothing was stored.
    expect((await call('GET', `/api/v1/segments/${ok.body.data.id}`)).body.data.rule_groups).toHaveLength(1)
  })

  test('9. a legal but slow count → 422 naming rule_groups within about the budget, health answered within 100 ms meanwhile', async () => {
    const { result, slowest, ms } = await healthDuring(() =>
      call('POST', `/api/v1/segments?client_id=${bulkId}`, { name: 'Slow', rule_groups: slowGroups }),
    )
    expect(result.status).toBe(422)
    expect(result.body.error.code).toBe('VALIDATION_FAILED')
    expect(result.body.error.details[0].field).toBe('rule_groups')
    expect(result.body.error.details[0].message).toContain(`longer than ${BUDGET_MS} ms`)
    expect(ms).toBeLessThan(BUDGET_MS + 1500)
    expect(slowest).toBeLessThan(100)
    // The refused segment was not stored.
    const listed = await call('GET', '/api/v1/segments?limit=100')
    expect(listed.body.data.map((s: { name: string }) => s.name)).not.toContain('Slow')
  })

  test('9. a slow count holds no writer: a write made meanwhile is answered at once', async () => {
    /** How long a list create took while a slow count ran (started once the count is under way). */
    const writeDuring = async () => {
      const count = call('POST', `/api/v1/segments?client_id=${bulkId}`, {
        name: 'Slow',
        rule_groups: slowGroups,
      })
      await Bun.sleep(60)
      const t0 = performance.now()
      const list = await call('POST', `/api/v1/lists?client_id=${clientId}`, { name: 'Made meanwhile' })
      const took = performance.now() - t0
      expect(list.status).toBe(200)
      expect((await count).status).toBe(422)
      return took
    }
    // The least of three tries: a shared machine may delay any one answer.
    let least = await writeDuring()
    for (let i = 1; i < 3 && least >= BUDGET_MS / 2; i++) least = Math.min(least, await writeDuring())
    expect(least).toBeLessThan(BUDGET_MS / 2)
  })

  test('9. a legal but slow update → 422 and the segment keeps its rules; a rename alone does not recount', async () => {
    const id = await storedSegment(
      'One name',
      [{ match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Name7' }] }],
      1,
    )
    const slow = await call('PATCH', `/api/v1/segments/${id}`, { rule_groups: slowGroups })
    expect(slow.status).toBe(422)
    expect(slow.body.error.details[0].message).toContain(`longer than ${BUDGET_MS} ms`)
    const renamed = await call('PATCH', `/api/v1/segments/${id}`, { name: 'Name seven' })
    expect(renamed.status).toBe(200)
    expect(renamed.body.data.estimated_size).toBe(1)
    expect(renamed.body.data.rule_groups[0].rules[0].field).toBe('first_name')
  })

  test('9. realistic segments are sized as before (fields, custom field, list, activity with min_count)', async () => {
    const list = await call('POST', `/api/v1/lists?client_id=${clientId}`, { name: 'Realistic' })
    const res = await call('POST', `/api/v1/segments?client_id=${clientId}`, {
      name: 'Realistic',
      match: 'any',
      rule_groups: [
        {
          match: 'all',
          rules: [
            { field: 'custom.plan', operator: 'eq', value: 'pro' },
            { field: 'email', operator: 'ends_with', value: '@bulk.example' },
            { field: 'status', operator: 'in', value: ['subscribed', 'unsubscribed'] },
            { field: 'created_at', operator: 'before', value: '2030-01-01T00:00:00Z' },
          ],
        },
        {
          match: 'all',
          rules: [
            { field: 'list', operator: 'in', value: [list.body.data.id] },
            { field: 'event', event: 'opened', operator: 'has', within_days: 30, min_count: 2 },
            { field: 'company', operator: 'contains', value: 'Labs' },
          ],
        },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body.data.estimated_size).toBe(CONTACTS / 3)
  })

  test("9. the portal's live estimate for a viewer is bounded: over the cost budget or past the time budget it says why, and health stays quick", async () => {
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer', clients: [bulkId] }))
    expect((await viewer.post('/admin/workspace', { workspace: bulkId, next: '/admin' })).status).toBe(303)
    const rule = (g: number, r: number, fields: Record<string, string>) =>
      Object.fromEntries(Object.entries(fields).map(([k, v]) => [`g${g}.r${r}.${k}`, v]))
    const slowForm: Record<string, string> = { name: 'x', match: 'all', 'g0.match': 'any' }
    slowGroups[0]!.rules.forEach((r, i) => {
      if (r.field === 'event')
        Object.assign(
          slowForm,
          rule(0, i, {
            field: 'event',
            event: r.event!,
            operator: r.operator,
            min_count: String(r.min_count),
          }),
        )
      else if (r.field.startsWith('custom.'))
        Object.assign(
          slowForm,
          rule(0, i, { field: 'custom', key: r.field.slice(7), operator: r.operator, value: r.value! }),
        )
      else Object.assign(slowForm, rule(0, i, { field: r.field, operator: r.operator, value: r.value! }))
    })
    // Warm the route (its templates are compiled on first use), so that only the count is measured.
    const warm = await viewer.post('/admin/segments/estimate', {
      name: 'x',
      match: 'all',
      'g0.match': 'all',
      ...rule(0, 0, { field: 'first_name', operator: 'eq', value: 'Name1' }),
    })
    expect(warm.status).toBe(200)
    await fetch(`${base}/api/v1/health`)
    const { result, slowest, ms } = await healthDuring(() =>
      viewer.post('/admin/segments/estimate', slowForm),
    )
    expect(ms).toBeLessThan(BUDGET_MS + 1500)
    expect(result.status).toBe(200)
    expect(result.text).toContain(`longer than ${BUDGET_MS} ms`)
    expect(result.text).not.toContain('data-size=')
    expect(slowest).toBeLessThan(100)

    const costly: Record<string, string> = { name: 'x', match: 'all' }
    for (let g = 0; g < 20; g++) {
      costly[`g${g}.match`] = 'any'
      for (let r = 0; r < 50; r++)
        Object.assign(
          costly,
          rule(g, r, { field: 'custom', key: `k${r}`, operator: 'contains', value: `v${g}` }),
        )
    }
    const refused = await viewer.post('/admin/segments/estimate', costly)
    expect(refused.status).toBe(200)
    expect(refused.text).toMatch(/simplify|fewer/)
    expect(refused.text).not.toContain('data-size=')
  })

  test('9. a campaign launch on a segment that grew slow → 422 naming rule_groups within about the budget, health quick, the campaign still a draft', async () => {
    // Saved when it was quick; the tenant has grown since.
    const segmentId = await storedSegment('Grew slow', slowGroups, 0)
    const template = await call('POST', `/api/v1/templates?client_id=${bulkId}`, {
      name: 'Hello',
      subject: 'Hi',
      body_text: 'Hello',
    })
    const campaign = await call('POST', `/api/v1/campaigns?client_id=${bulkId}`, {
      name: 'To the slow segment',
      segment_id: segmentId,
      template_id: template.body.data.id,
    })
    expect(campaign.status).toBe(200)
    // Warm the launch path (first use compiles the template and loads the sending code) on a
    // small tenant's segment campaign, so that only the count is measured below.
    const small = await call('POST', `/api/v1/segments?client_id=${clientId}`, {
      name: 'Small',
      rule_groups: [{ match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Name1' }] }],
    })
    const smallTemplate = await call('POST', `/api/v1/templates?client_id=${clientId}`, {
      name: 'Hello',
      subject: 'Hi',
      body_text: 'Hello',
    })
    const warm = await call('POST', `/api/v1/campaigns?client_id=${clientId}`, {
      name: 'Warm-up',
      segment_id: small.body.data.id,
      template_id: smallTemplate.body.data.id,
    })
    const warmed = await call('POST', `/api/v1/campaigns/${warm.body.data.id}/launch`, { confirm: true })
    expect(warmed.status).toBe(200)
    expect(warmed.body.data.total_recipients).toBe(1)
    await fetch(`${base}/api/v1/health`)
    const { result, slowest, ms } = await healthDuring(() =>
      call('POST', `/api/v1/campaigns/${campaign.body.data.id}/launch`, { confirm: true }),
    )
    expect(ms).toBeLessThan(BUDGET_MS + 1500)
    expect(result.status).toBe(422)
    expect(result.body.error.details[0].field).toBe('rule_groups')
    expect(result.body.error.details[0].message).toContain(`longer than ${BUDGET_MS} ms`)
    expect(slowest).toBeLessThan(100)
    expect((await call('GET', `/api/v1/campaigns/${campaign.body.data.id}`)).body.data.status).toBe('draft')
  })
})
