// The journeys pages of the portal, driven in-process like a browser without JavaScript: the
// list, creating a draft, adding and editing nodes through one form per type (422s shown on the
// node and member), the graph as SVG with per-node counts, activation errors on the nodes,
// activate / pause / archive behind a confirmation, and each contact's path.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createFlowWorker } from '../../../src/services/flows/worker'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { idFrom, lazyOwner, makeUser, PORTAL_ENV, signIn } from './portal-helpers'

setDefaultTimeout(60_000)

const t = await createTestApp({ env: PORTAL_ENV })
const key = await t.key({ scopes: ['admin:*'], clientId: t.defaultClientId })
const worker = createFlowWorker(t.ctx)
const owner = lazyOwner(t)
const api = await adminApi(t, key)

describe('journeys pages', () => {
  test('empty list, create a draft, add and edit nodes, errors on the node, activate, the graph with counts, enrollments, pause, archive', async () => {
    const b = await owner()
    const empty = await b.get('/admin/journeys')
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No journeys')
    expect(empty.text).toContain('href="/admin/journeys/new"')

    const template = await api('POST', '/api/v1/templates', {
      name: 'Welcome <b>',
      subject: 'Hi',
      body_text: 'Hello',
    })
    const created = await b.post('/admin/journeys', { name: 'Trial <welcome>' })
    expect(created.status).toBe(303)
    const id = idFrom(created.location)
    let page = await b.get(`/admin/journeys/${id}`)
    expect(page.text).toContain('Trial &lt;welcome&gt;')
    expect(page.text).toContain('<svg class="journey-graph"')
    expect(page.text).toContain('data-node="trigger"')

    // Adding a send node opens its form (its members are needed); a 422 sits on the member.
    let r = await b.post(`/admin/journeys/${id}/nodes`, { node_id: 'x', type: 'exit' })
    expect(r.status).toBe(303)
    r = await b.post(`/admin/journeys/${id}/nodes`, { node_id: 's1', type: 'send' })
    expect(r.status).toBe(422)
    expect(r.text).toContain('A new send node')
    expect(r.text).toMatch(/id="template_id-error" class="field-error">is required/)
    expect(r.text).toContain('<input type="hidden" name="type" value="send">')
    const bad = await b.post(`/admin/journeys/${id}/nodes/s1`, {
      type: 'send',
      template_id: '',
      next: 'x',
      channel: 'sms',
    })
    expect(bad.status).toBe(422)
    expect(bad.text).toMatch(/id="template_id-error" class="field-error">is required/)
    expect(bad.text).toContain('<input type="hidden" name="type" value="send">')
    r = await b.post(`/admin/journeys/${id}/nodes/s1`, {
      type: 'send',
      template_id: template.id,
      next: 'x',
      label: 'Welcome mail',
      channel: 'email',
    })
    expect(r.status).toBe(303)
    expect((await api('GET', `/api/v1/journeys/${id}`)).nodes[2]).toEqual({
      id: 's1',
      type: 'send',
      template_id: template.id,
      next: 'x',
      label: 'Welcome mail',
      channel: 'email',
    })
    // The trigger's form lists the other nodes as targets; it now leads to s1.
    const form = await b.get(`/admin/journeys/${id}/nodes/trigger`)
    expect(form.status).toBe(200)
    expect(form.text).toContain('<option value="s1">s1 (send)</option>')
    expect(
      (await b.post(`/admin/journeys/${id}/nodes/trigger`, { trigger: 'manual', next: 's1' })).status,
    ).toBe(303)
    // JSON members: a condition's rule groups that do not parse, then rules the segment checks refuse.
    r = await b.post(`/admin/journeys/${id}/nodes`, { node_id: 'c', type: 'condition' })
    expect(r.status).toBe(422)
    r = await b.post(`/admin/journeys/${id}/nodes/c`, { type: 'condition', rule_groups: '[{oops' })
    expect(r.status).toBe(422)
    expect(r.text).toContain('is not valid JSON')
    r = await b.post(`/admin/journeys/${id}/nodes/c`, {
      type: 'condition',
      rule_groups: '[{"match": "all", "rules": [{"field": "shoe_size", "operator": "eq", "value": 1}]}]',
    })
    expect(r.status).toBe(422)
    expect(r.text).toContain('rule_groups[0].rules[0].field: unknown field')
    expect((await api('GET', `/api/v1/journeys/${id}`)).nodes.map((n: { id: string }) => n.id)).toEqual([
      'trigger',
      'x',
      's1',
    ])

    // Activation refused: an unreachable node is shown on the graph and in the table.
    await api('PATCH', `/api/v1/journeys/${id}`, {
      nodes: [...(await api('GET', `/api/v1/journeys/${id}`)).nodes, { id: 'orphan', type: 'exit' }],
    })
    const refused = await b.post(`/admin/journeys/${id}/activate`, {})
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('is not reachable from the trigger')
    expect(refused.text).toMatch(/<g class="journey-node" data-node="orphan"><rect [^>]*stroke="#b91c1c"/)
    const removed = await b.post(`/admin/journeys/${id}/nodes/orphan`, { delete: '1' })
    expect(removed.status).toBe(303)
    const activated = await b.post(`/admin/journeys/${id}/activate`, {})
    expect(activated.status).toBe(303)
    page = await b.get(`/admin/journeys/${id}`)
    expect(page.text).toContain('The journey is active.')
    expect(page.text).toContain('Status <strong>active</strong>')
    expect(page.text).toContain('Pause the journey to change its nodes.')

    // Two contacts go through; the graph and the table show the counts, the enrollments their path.
    const c1 = await api('POST', '/api/v1/contacts', { email: 'p1@example.com' })
    const c2 = await api('POST', '/api/v1/contacts', { email: 'p2@example.com' })
    await api('POST', `/api/v1/journeys/${id}/enroll`, { contact_ids: [c1.id, c2.id] })
    await worker.drain()
    page = await b.get(`/admin/journeys/${id}`)
    expect(page.text).toContain('2 entered')
    expect(page.text).toMatch(/data-node="s1">[\s\S]*?2 passed/)
    expect(page.text).toContain('trigger → s1 → x')
    expect(page.text).toContain(`href="/admin/contacts/${c1.id}"`)

    const paused = await b.post(`/admin/journeys/${id}/pause`, {})
    expect(paused.status).toBe(303)
    expect((await api('GET', `/api/v1/journeys/${id}`)).status).toBe('paused')
    const confirm = await b.get(`/admin/journeys/${id}/archive`)
    expect(confirm.text).toContain('Archive the journey')
    const archived = await b.post(`/admin/journeys/${id}/archive`, {})
    expect(archived.status).toBe(303)
    expect((await api('GET', `/api/v1/journeys/${id}`)).status).toBe('archived')
    const list = await b.get('/admin/journeys?status=archived')
    expect(list.text).toContain('Trial &lt;welcome&gt;')
  })

  test('two editors of one node: the second form, drawn before the first save, answers 409 and keeps what was typed', async () => {
    const b = await owner()
    const j = await api('POST', '/api/v1/journeys', {
      name: 'Two editors',
      nodes: [
        { id: 'trigger', type: 'trigger', trigger: 'manual', next: 'x' },
        { id: 'x', type: 'exit' },
      ],
    })
    const version = (html: string) => /name="updated_at" value="([^"]+)"/.exec(html)?.[1]
    const formA = await b.get(`/admin/journeys/${j.id}/nodes/x`)
    const formB = await b.get(`/admin/journeys/${j.id}/nodes/x`)
    expect(version(formA.text)).toBe(j.updated_at)
    expect(version(formB.text)).toBe(j.updated_at)
    const saved = await b.post(`/admin/journeys/${j.id}/nodes/x`, { label: 'A', updated_at: j.updated_at })
    expect(saved.status).toBe(303)
    const stale = await b.post(`/admin/journeys/${j.id}/nodes/x`, { label: 'B', updated_at: j.updated_at })
    expect(stale.status).toBe(409)
    expect(stale.text).toContain('after this form was opened')
    expect(stale.text).toMatch(/id="f-label" name="label" type="text" value="B"/)
    const now = await api('GET', `/api/v1/journeys/${j.id}`)
    expect(now.nodes[1]).toEqual({ id: 'x', type: 'exit', label: 'A' })
    // The form now carries the current version: saving again applies B over A, knowingly.
    expect(version(stale.text)).toBe(now.updated_at)
    const removed = await b.post(`/admin/journeys/${j.id}/nodes/x`, { delete: '1', updated_at: j.updated_at })
    expect(removed.status).toBe(409)
    expect(
      (await b.post(`/admin/journeys/${j.id}/nodes/x`, { label: 'B', updated_at: now.updated_at })).status,
    ).toBe(303)
  })

  test('adding a node whose id or type is refused: the 422 page says why above the table', async () => {
    const b = await owner()
    const j = await api('POST', '/api/v1/journeys', {
      name: 'Bad additions',
      nodes: [{ id: 'trigger', type: 'trigger', trigger: 'manual' }],
    })
    // The browser's pattern check is only a hint: the server's answer must say what is wrong.
    const badId = await b.post(`/admin/journeys/${j.id}/nodes`, { node_id: 'bad id', type: 'exit' })
    expect(badId.status).toBe(422)
    expect(badId.text).toContain('role="alert"')
    expect(badId.text).toContain('New node “bad id” · id: is required: 1 to 64 letters, digits, _ or -')
    const badType = await b.post(`/admin/journeys/${j.id}/nodes`, { node_id: 'n1', type: 'teleport' })
    expect(badType.status).toBe(422)
    expect(badType.text).toMatch(/New node “n1” · type: &#34;teleport&#34; is not one of/)
    expect((await api('GET', `/api/v1/journeys/${j.id}`)).nodes).toHaveLength(1)
  })

  test('a viewer sees the pages but cannot change a journey; another workspace’s journey is 404', async () => {
    const j = await api('POST', '/api/v1/journeys', { name: 'Viewer view' })
    const viewer = await signIn(t, await makeUser(t, { role: 'viewer' }))
    expect((await viewer.get(`/admin/journeys/${j.id}`)).status).toBe(200)
    expect((await viewer.post(`/admin/journeys/${j.id}/activate`, {})).status).toBe(403)
    const other = await t.client('Elsewhere')
    const foreign = await t.call('POST', `/api/v1/journeys?client_id=${other}`, { body: { name: 'Foreign' } })
    const member = await signIn(t, await makeUser(t, { role: 'member', clients: [t.defaultClientId] }))
    expect((await member.get(`/admin/journeys/${foreign.body.data.id}`)).status).toBe(404)
  })
})
