import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import MailComposer from 'nodemailer/lib/mail-composer'
import { withActor } from '../../src/context'
import { agentRegistrations } from '../../src/db/schema'
import { operations } from '../../src/http/rest/registry'
import { systemActor } from '../../src/services/actors/actor'
import { approveRegistrationVerb } from '../../src/services/agents/verbs'
import { createImportWorker } from '../../src/services/imports/runner'
import { invoke } from '../../src/services/verbs/invoke'
import { startWebhookWorker } from '../../src/webhooks/worker'
import { type CallOptions, type CallResult, createTestApp } from '../helpers/app'
import { startDnsServer } from '../helpers/dns-server'
import { eventually, startReceiver } from '../helpers/receiver'
import { recordingProvider, startTestSender } from '../helpers/sender'
import { type EmailOut, INBOUND_ENV } from '../inbound/fixtures'

// The document against the server: realistic calls to every operation, and every answer checked
// against what /openapi.json declares for its status — the status itself, the media type, the
// body (JSON Schema 2020-12, with ajv) and the headers (X-Request-Id always; RateLimit-*,
// Retry-After, WWW-Authenticate, Idempotency-Key, Idempotent-Replayed where they are sent).

// biome-ignore lint/suspicious/noExplicitAny: documents and bodies are walked freely
type Json = Record<string, any>

const dns = await startDnsServer()
const receiver = startReceiver()
const t = await createTestApp({
  env: {
    HERALD_WEBHOOK_ALLOW_PRIVATE: '1',
    HERALD_DNS_SERVERS: dns.address,
    HERALD_INBOUND_DOMAIN: INBOUND_ENV.HERALD_INBOUND_DOMAIN,
  },
})
const provider = recordingProvider()
startTestSender(t, provider)
const webhooks = startWebhookWorker(t.ctx, { schedule: [0], timeoutMs: 1000, pollMs: 10 })
const imports = createImportWorker(t.ctx)
afterAll(async () => {
  webhooks.stop()
  await receiver.close()
})

// ---------------------------------------------------------------------------------------------
// The checker.

let doc: Json
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
const DOC_ID = 'herald:openapi'
const validators = new Map<string, ValidateFunction>()

function validator(schema: Json): ValidateFunction {
  // Refs are relative to the document; the document's components are registered under DOC_ID.
  const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)
  let v = validators.get(text)
  if (!v) {
    v = ajv.compile(JSON.parse(text))
    validators.set(text, v)
  }
  return v
}

const deref = (node: Json): Json => {
  if (typeof node?.$ref !== 'string') return node
  const path = (node.$ref as string).replace(/^#\//, '').split('/')
  return deref(path.reduce((n: Json, k) => n[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc))
}

const templates = () =>
  Object.keys(doc.paths)
    .map((p) => ({ p, re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`), params: p.split('{').length }))
    .sort((a, b) => a.params - b.params)

/** What each operation answered: `GET /api/v1/contacts/{id}` → statuses. */
const seen = new Map<string, Set<number>>()

/** Headers whose presence the document must declare for the response that carries them. */
const DECLARED_HEADERS = [
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'idempotency-key',
  'idempotent-replayed',
  'allow',
]

function check(method: string, url: string, r: CallResult): void {
  const pathname = new URL(url, 'http://x').pathname
  const where = `${method} ${pathname} → ${r.status}`
  const template = templates().find((x) => x.re.test(pathname))
  const operation = template && doc.paths[template.p][method.toLowerCase()]
  let response: Json
  if (operation) {
    const key = `${method} ${template.p}`
    seen.set(key, (seen.get(key) ?? new Set()).add(r.status))
    response = operation.responses[String(r.status)]
    if (!response) throw new Error(`${where}: status not declared (${r.text.slice(0, 300)})`)
    response = deref(response)
  } else if (r.status === 405) response = deref(doc.components.responses.MethodNotAllowed)
  else throw new Error(`${where}: no operation in the document`)

  // Headers: the declared required ones are there, and the ones sent are declared.
  const declared = Object.fromEntries(
    Object.entries((response.headers ?? {}) as Json).map(([name, h]) => [name.toLowerCase(), deref(h)]),
  )
  for (const [name, h] of Object.entries(declared))
    if (h.required) expect(r.headers.has(name), `${where}: required header ${name}`).toBe(true)
  for (const name of DECLARED_HEADERS)
    if (r.headers.has(name)) expect(declared[name], `${where}: header ${name} is not declared`).toBeDefined()
  expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)

  // Media type and body.
  const type = (r.headers.get('content-type') ?? '').split(';')[0]!.trim()
  const content = response.content as Json | undefined
  if (!content) {
    expect(r.text, `${where}: no body declared`).toBe('')
    return
  }
  expect(Object.keys(content), `${where}: media type ${type} not declared`).toContain(type)
  if (type === 'application/json') {
    const validate = validator(content[type].schema)
    if (!validate(r.body))
      throw new Error(
        `${where}: body does not match the document: ${ajv.errorsText(validate.errors)}\n${r.text.slice(0, 600)}`,
      )
  }
}

/** t.call, checked against the document. */
async function call(method: string, path: string, options?: CallOptions): Promise<CallResult> {
  const r = await t.call(method, path, options)
  check(method, path, r)
  return r
}

/** A call that must answer 200; its `data`. */
async function ok(method: string, path: string, options?: CallOptions) {
  const r = await call(method, path, options)
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  doc = (await t.call('GET', '/openapi.json', { key: null })).body
  ajv.addSchema({ $id: DOC_ID, components: doc.components })
})

const acme = await t.client('Acme')
const key = await t.key({ scopes: ['admin:*'], clientId: acme })
const as = (k: string | null, o: CallOptions = {}) => ({ ...o, key: k })
const contactExample = () =>
  structuredClone(
    doc.paths['/api/v1/contacts'].post.responses['200'].content['application/json'].example.data,
  )

describe('every operation answers what /openapi.json declares', () => {
  test('the checker refuses what the document does not allow', () => {
    const created = doc.paths['/api/v1/contacts'].post.responses['200'].content['application/json'].schema
    expect(validator(created)({ data: { id: 'x' } })).toBe(false)
    expect(validator(created)({ data: { ...contactExample(), status: 'gone' } })).toBe(false)
    expect(validator(created)({ data: contactExample() })).toBe(true)
    const invalid = deref(doc.paths['/api/v1/contacts'].post.responses['422']).content['application/json']
      .schema
    expect(
      validator(invalid)({
        error: { code: 'VALIDATION_FAILED', message: 'm', request_id: Bun.randomUUIDv7() },
      }),
    ).toBe(false)
  })

  test('examples in the document match their own schemas', () => {
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json)) {
        const request = op.requestBody?.content?.['application/json']
        if (request?.example !== undefined)
          expect(validator(deref(request.schema))(request.example), `${method} ${path} request example`).toBe(
            true,
          )
        const answer = op.responses['200'].content?.['application/json']
        if (answer?.example !== undefined)
          expect(validator(answer.schema)(answer.example), `${method} ${path} response example`).toBe(true)
      }
  })

  test('system, discovery, clients and API keys', async () => {
    await call('GET', '/api/v1/health', as(null))
    await call('GET', '/.well-known/oauth-protected-resource', as(null))
    await call('GET', '/.well-known/oauth-protected-resource/mcp/v1', as(null))
    const c = await ok('POST', '/api/v1/clients', { body: { name: 'Globex', industry: 'Retail' } })
    await ok('GET', '/api/v1/clients?limit=2')
    await ok('GET', `/api/v1/clients/${c.id}`)
    await ok('PATCH', `/api/v1/clients/${c.id}`, { body: { status: 'suspended' } })
    await ok('GET', `/api/v1/clients/${acme}/sending`)
    await ok('PUT', `/api/v1/clients/${acme}/sending`, {
      body: { email: { provider: 'inherit' }, footer: { company: 'Acme', postal_address: '1 Main St' } },
    })
    await ok('POST', `/api/v1/clients/${acme}/sending/test`, { body: { channel: 'sms' } })
    const k = await ok('POST', '/api/v1/api-keys', {
      body: { name: 'CI', scopes: ['contacts:read'], client_id: acme, tier: 'growth' },
    })
    await ok('GET', `/api/v1/api-keys?client_id=${acme}`)
    await ok('DELETE', `/api/v1/api-keys/${k.id}`)
  })

  test('OAuth clients', async () => {
    const o = await ok('POST', '/api/v1/oauth-clients', {
      body: {
        name: 'Reporting',
        redirect_uris: ['https://app.example/cb'],
        confidential: true,
        scopes: ['contacts:read'],
      },
    })
    await ok('GET', '/api/v1/oauth-clients')
    await ok('DELETE', `/api/v1/oauth-clients/${o.id}`)
  })

  test('agent registration: register, claim, revoke, and their refusals', async () => {
    const reg = await ok('POST', '/agent/auth/register', {
      key: null,
      body: { client_name: 'Doc agent', identity_type: 'anonymous', scopes: ['contacts:read'] },
    })
    const claim = (k: string | null) =>
      call('POST', '/agent/auth/claim', { key: k, body: { registration_id: reg.registration_id } })
    expect((await claim(null)).status).toBe(409)
    const [row] = await t.ctx.db.select().from(agentRegistrations)
    await invoke(approveRegistrationVerb, withActor(t.ctx, systemActor('test'), 'test'), {
      id: row!.id,
      client_id: acme,
      scopes: ['contacts:read'],
    })
    const credential = (
      await ok('POST', '/agent/auth/claim', { key: null, body: { registration_id: reg.registration_id } })
    ).credential
    expect(
      (await call('POST', '/agent/auth/claim', { key: null, body: { registration_id: 'reg_nope' } })).status,
    ).toBe(404)
    await ok('POST', '/agent/auth/revoke', { key: null, body: { credential } })
    let limited = await call('POST', '/agent/auth/revoke', { key: null, body: { credential } })
    for (let i = 0; i < 30 && limited.status !== 429; i++)
      limited = await call('POST', '/agent/auth/revoke', { key: null, body: { credential } })
    expect(limited.status).toBe(429)
  })

  let list: Json
  let ann: Json
  let bob: Json
  test('contacts, lists, imports and the CSV export', async () => {
    list = await ok(
      'POST',
      '/api/v1/lists',
      as(key, { body: { name: 'Newsletter', description: 'Monthly' } }),
    )
    // A platform-wide key must name the client.
    const unowned = await call('POST', '/api/v1/lists', { body: { name: 'Platform-made' } })
    expect(unowned.body.error.details).toEqual([
      { field: 'client_id', message: 'is required (query parameter) when using a platform-wide key' },
    ])
    ann = await ok(
      'POST',
      '/api/v1/contacts',
      as(key, {
        body: {
          email: 'ann.lee@acme.io',
          first_name: 'Ann',
          last_name: 'Lee',
          company: 'Acme',
          phone: '+14155550123',
          timezone: 'America/Los_Angeles',
          custom_fields: { plan: 'pro', seats: 3, trial: false, renews: '2027-01-01T00:00:00.000Z' },
          list_ids: [list.id],
        },
      }),
    )
    bob = await ok('POST', `/api/v1/contacts?client_id=${acme}`, { body: { email: 'bob@acme.io' } })
    const cy = await ok(
      'POST',
      '/api/v1/contacts',
      as(key, { body: { email: 'cy@acme.io', status: 'blocked' } }),
    )
    await ok('GET', '/api/v1/contacts?limit=2', as(key))
    await ok('POST', '/api/v1/contacts/search', as(key, { body: { query: 'ann acme', limit: 10 } }))
    await ok('GET', `/api/v1/contacts/${ann.id}`, as(key))
    await ok('PATCH', `/api/v1/contacts/${bob.id}`, as(key, { body: { custom_fields: { plan: 'team' } } }))
    await ok('DELETE', `/api/v1/contacts/${cy.id}`, as(key))

    await ok('GET', `/api/v1/lists/${list.id}`, as(key))
    await ok('GET', '/api/v1/lists', as(key))
    await ok('POST', `/api/v1/lists/${list.id}/contacts`, as(key, { body: { contact_ids: [bob.id] } }))
    await ok('GET', `/api/v1/lists/${list.id}/contacts`, as(key))
    await ok('POST', `/api/v1/lists/${list.id}/contacts/remove`, as(key, { body: { contact_ids: [bob.id] } }))
    await ok('PATCH', `/api/v1/lists/${list.id}`, as(key, { body: { opt_in: 'double', public: true } }))
    await ok('GET', `/api/v1/contacts/${bob.id}/consents`, as(key))
    await ok('GET', `/api/v1/contacts/${bob.id}/export`, as(key))
    const other = await ok('POST', '/api/v1/lists', as(key, { body: { name: 'Old' } }))
    await ok('DELETE', `/api/v1/lists/${other.id}`, as(key))
    const form = await ok(
      'POST',
      '/api/v1/forms',
      as(key, {
        body: { name: 'Signup', list_ids: [list.id], fields: ['first_name'], consent_text: 'Yes, please' },
      }),
    )
    await ok('GET', '/api/v1/forms', as(key))
    await ok('GET', `/api/v1/forms/${form.id}`, as(key))
    await ok(
      'PATCH',
      `/api/v1/forms/${form.id}`,
      as(key, { body: { success_url: 'https://acme.io/thanks' } }),
    )
    await ok('GET', `/api/v1/forms/${form.id}/embed`, as(key))
    await ok('DELETE', `/api/v1/forms/${form.id}`, as(key))

    const job = await ok(
      'POST',
      `/api/v1/contacts/imports?list_id=${list.id}&update_existing=true`,
      as(key, {
        raw: 'email,first_name,plan\ndee@acme.io,Dee,basic\nnot-an-email,X,\n',
        headers: { 'content-type': 'text/csv' },
      }),
    )
    await imports.drain()
    expect((await ok('GET', `/api/v1/contacts/imports/${job.id}`, as(key))).status).toBe('completed')

    const csv = await call('GET', '/api/v1/contacts/export', as(key))
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toStartWith('text/csv')
    expect(csv.text).toContain('ann.lee@acme.io')
  })

  test('segments, with every kind of rule', async () => {
    const rule_groups = [
      {
        match: 'all',
        rules: [
          { field: 'email', operator: 'ends_with', value: '@acme.io' },
          { field: 'custom.plan', operator: 'in', value: ['pro', 'team'] },
          { field: 'company', operator: 'exists' },
          { field: 'created_at', operator: 'after', value: '2020-01-01T00:00:00.000Z' },
          { field: 'created_at', operator: 'within_last_days', value: 30 },
          { field: 'list', operator: 'in', value: [list.id] },
        ],
      },
      { match: 'any', rules: [{ field: 'event', event: 'opened', operator: 'has_not', within_days: 14 }] },
    ]
    const s = await ok(
      'POST',
      '/api/v1/segments',
      as(key, { body: { name: 'Pro at Acme', match: 'all', rule_groups } }),
    )
    await ok('GET', `/api/v1/segments/${s.id}`, as(key))
    await ok('GET', '/api/v1/segments', as(key))
    await ok('GET', `/api/v1/segments/${s.id}/contacts`, as(key))
    await ok('PATCH', `/api/v1/segments/${s.id}`, as(key, { body: { match: 'any' } }))
    const gone = await ok(
      'POST',
      '/api/v1/segments',
      as(key, {
        body: {
          name: 'Gone',
          rule_groups: [{ match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'subscribed' }] }],
        },
      }),
    )
    await ok('DELETE', `/api/v1/segments/${gone.id}`, as(key))
  })

  test('suppressions, templates, domains and senders', async () => {
    await ok('POST', '/api/v1/suppressions', as(key, { body: { email: 'no@acme.io', reason: 'asked' } }))
    await ok('GET', '/api/v1/suppressions', as(key))
    await ok('DELETE', '/api/v1/suppressions/no@acme.io', as(key))

    const tpl = await ok(
      'POST',
      '/api/v1/templates',
      as(key, {
        body: {
          name: 'Welcome',
          subject: 'Hi {{ contact.first_name | default: "there" }}',
          body_html: '<p>Hi {{ contact.custom.plan }}</p><a href="{{ unsubscribe_url }}">unsubscribe</a>',
          body_text: 'Hi',
        },
      }),
    )
    await ok('GET', `/api/v1/templates/${tpl.id}`, as(key))
    await ok('GET', '/api/v1/templates', as(key))
    await ok('PATCH', `/api/v1/templates/${tpl.id}`, as(key, { body: { name: 'Welcome!' } }))
    await ok('POST', `/api/v1/templates/${tpl.id}/preview`, as(key, { body: { contact_id: ann.id } }))
    await ok(
      'POST',
      `/api/v1/templates/${tpl.id}/preview`,
      as(key, { body: { sample: { contact: { first_name: 'Sam' } } } }),
    )
    const sms = await ok(
      'POST',
      '/api/v1/templates',
      as(key, { body: { name: 'SMS', channel: 'sms', body_text: 'Hi' } }),
    )
    await ok('POST', `/api/v1/templates/${sms.id}/preview`, as(key, { body: {} }))
    await ok('DELETE', `/api/v1/templates/${sms.id}`, as(key))

    const domain = await ok('POST', '/api/v1/domains', as(key, { body: { domain: 'acme.test' } }))
    await ok('GET', `/api/v1/domains/${domain.id}`, as(key))
    await ok('GET', '/api/v1/domains', as(key))
    await ok('POST', `/api/v1/domains/${domain.id}/verify`, as(key))
    await ok('PATCH', `/api/v1/domains/${domain.id}`, as(key, { body: { warmup: false } }))
    const spare = await ok('POST', '/api/v1/domains', as(key, { body: { domain: 'spare.test' } }))
    await ok('DELETE', `/api/v1/domains/${spare.id}`, as(key))

    const sender = await ok(
      'POST',
      '/api/v1/senders',
      as(key, { body: { from_email: 'news@acme.test', from_name: 'Acme', reply_to: 'help@acme.test' } }),
    )
    await ok('GET', `/api/v1/senders/${sender.id}`, as(key))
    await ok('GET', '/api/v1/senders', as(key))
    await ok('PATCH', `/api/v1/senders/${sender.id}`, as(key, { body: { from_name: 'Acme News' } }))
    const old = await ok(
      'POST',
      '/api/v1/senders',
      as(key, { body: { from_email: 'old@acme.test', from_name: 'Old' } }),
    )
    await ok('DELETE', `/api/v1/senders/${old.id}`, as(key))
  })

  let sent: Json
  test('campaigns through their states, messages, stats', async () => {
    const body = {
      name: 'Launch week',
      list_id: list.id,
      subject: 'Hello',
      body_html: '<p>Hi</p>',
      body_text: 'Hi',
    }
    sent = await ok('POST', '/api/v1/campaigns', as(key, { body }))
    await ok('GET', `/api/v1/campaigns/${sent.id}`, as(key))
    await ok('PATCH', `/api/v1/campaigns/${sent.id}`, as(key, { body: { name: 'Launch week!' } }))
    await ok('POST', `/api/v1/campaigns/${sent.id}/launch`, as(key, { body: { confirm: true } }))
    await eventually(async () =>
      expect((await ok('GET', `/api/v1/campaigns/${sent.id}`, as(key))).status).toBe('sent'),
    )
    await ok('GET', `/api/v1/campaigns/${sent.id}/stats`, as(key))
    await ok('GET', '/api/v1/campaigns?status=sent&search=launch', as(key))

    const later = await ok(
      'POST',
      '/api/v1/campaigns',
      as(key, {
        body: { ...body, name: 'Later', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() },
      }),
    )
    expect(
      (await ok('POST', `/api/v1/campaigns/${later.id}/launch`, as(key, { body: { confirm: true } }))).status,
    ).toBe('scheduled')
    await ok('POST', `/api/v1/campaigns/${later.id}/pause`, as(key))
    await ok('POST', `/api/v1/campaigns/${later.id}/cancel`, as(key))
    // An A/B campaign: its variants and state in every answer, the stats per variant, a pick.
    const ab = await ok(
      'POST',
      '/api/v1/campaigns',
      as(key, {
        body: {
          ...body,
          name: 'A/B',
          variants: [
            { name: 'A', subject: 'One' },
            { name: 'B', subject: 'Two' },
          ],
          ab_test: { test_share: 0.5, metric: 'open_rate', duration: 'PT1H' },
        },
      }),
    )
    await ok('POST', `/api/v1/campaigns/${ab.id}/launch`, as(key, { body: { confirm: true } }))
    await eventually(async () =>
      expect((await ok('GET', `/api/v1/campaigns/${ab.id}`, as(key))).ab_test_state.phase).toBe('testing'),
    )
    await ok('GET', `/api/v1/campaigns/${ab.id}/stats`, as(key))
    await ok('POST', `/api/v1/campaigns/${ab.id}/ab-test/winner`, as(key, { body: { variant: 'B' } }))
    const draft = await ok('POST', '/api/v1/campaigns', as(key, { body: { name: 'Draft' } }))
    await ok('DELETE', `/api/v1/campaigns/${draft.id}`, as(key))

    const messages = await ok(
      'GET',
      `/api/v1/messages?campaign_id=${sent.id}&contact_id=${ann.id}&status=delivered`,
      as(key),
    )
    expect(messages.length).toBe(1)
    await ok('GET', `/api/v1/messages/${messages[0].id}`, as(key))
    await ok(
      'POST',
      '/api/v1/messages',
      as(key, {
        body: {
          contact_id: bob.id,
          subject: 'Your receipt',
          body_text: 'Thanks {{ contact.email }}',
          variables: { total: 12 },
        },
      }),
    )
  })

  test('journeys through their states, enrollments and stats', async () => {
    const tpl = await ok(
      'POST',
      '/api/v1/templates',
      as(key, { body: { name: 'J', subject: 'Hi', body_text: 'Hi' } }),
    )
    const nodes = [
      { id: 't', type: 'trigger', trigger: 'manual', next: 's1' },
      { id: 's1', type: 'send', template_id: tpl.id, next: 'x' },
      { id: 'x', type: 'exit' },
    ]
    const j = await ok('POST', '/api/v1/journeys', as(key, { body: { name: 'Welcome', nodes } }))
    await ok('GET', `/api/v1/journeys/${j.id}`, as(key))
    await ok('GET', '/api/v1/journeys?status=draft', as(key))
    await ok('PATCH', `/api/v1/journeys/${j.id}`, as(key, { body: { name: 'Welcome!' } }))
    await ok('POST', `/api/v1/journeys/${j.id}/activate`, as(key))
    await ok('POST', `/api/v1/journeys/${j.id}/enroll`, as(key, { body: { contact_ids: [ann.id] } }))
    await ok('GET', `/api/v1/journeys/${j.id}/enrollments`, as(key))
    await ok('GET', `/api/v1/journeys/${j.id}/stats`, as(key))
    await ok('POST', `/api/v1/journeys/${j.id}/pause`, as(key))
    await ok('POST', `/api/v1/journeys/${j.id}/archive`, as(key))
    const draft = await ok('POST', '/api/v1/journeys', as(key, { body: { name: 'Draft' } }))
    await ok('DELETE', `/api/v1/journeys/${draft.id}`, as(key))
  })

  test('sequences through their states, enrollments and a stop', async () => {
    const steps = [
      { subject: 'Hi', body_text: 'Hi', delay: 'P1D' },
      { body_text: 'Again', delay: { days: 2 } },
    ]
    const q = await ok('POST', '/api/v1/sequences', as(key, { body: { name: 'Outreach', steps } }))
    await ok('GET', `/api/v1/sequences/${q.id}`, as(key))
    await ok('GET', '/api/v1/sequences?status=draft', as(key))
    await ok('PATCH', `/api/v1/sequences/${q.id}`, as(key, { body: { settings: { daily_limit: 10 } } }))
    await ok('POST', `/api/v1/sequences/${q.id}/activate`, as(key))
    await ok('POST', `/api/v1/sequences/${q.id}/enroll`, as(key, { body: { contact_ids: [ann.id] } }))
    await ok('GET', `/api/v1/sequences/${q.id}/enrollments`, as(key))
    await ok('POST', `/api/v1/sequences/${q.id}/enrollments/${ann.id}/stop`, as(key))
    await ok('POST', `/api/v1/sequences/${q.id}/pause`, as(key))
    await ok('POST', `/api/v1/sequences/${q.id}/archive`, as(key))
  })

  test('inbound mail and replies', async () => {
    const m = provider.sent.find((x) => x.channel === 'email' && x.to === 'ann.lee@acme.io') as EmailOut
    const raw = await new MailComposer({ from: m.to, to: m.replyTo!, subject: 'Re: Hello', text: 'Thanks!' })
      .compile()
      .build()
    const got = await ok('POST', '/api/v1/inbound/email', {
      raw,
      headers: { 'content-type': 'message/rfc822' },
    })
    expect(got.kind).toBe('reply')
    await ok('GET', '/api/v1/replies', as(key))
    await ok('GET', `/api/v1/replies/${got.reply_id}`, as(key))
    const ignored = await ok('POST', '/api/v1/inbound/email', {
      raw: 'Subject: hi\r\n\r\nhello',
      headers: { 'content-type': 'text/plain' },
    })
    expect(ignored.kind).toBe('ignored')
  })

  test('analytics and deliverability', async () => {
    await ok('GET', '/api/v1/analytics/funnel', as(key))
    await ok('GET', '/api/v1/analytics/trends?metric=opened&interval=hour&timezone=Europe/Paris', as(key))
    await ok('GET', '/api/v1/deliverability/score', as(key))
    await ok('GET', '/api/v1/deliverability/alerts', as(key))
  })

  test('webhooks: create, test, deliveries, retry, secrets', async () => {
    const hook = await ok(
      'POST',
      '/api/v1/webhooks',
      as(key, { body: { url: receiver.url, events: ['contact.unsubscribed', 'email.opened'] } }),
    )
    await ok('GET', `/api/v1/webhooks/${hook.id}`, as(key))
    await ok('GET', '/api/v1/webhooks', as(key))
    await ok('PATCH', `/api/v1/webhooks/${hook.id}`, as(key, { body: { events: ['contact.unsubscribed'] } }))
    await ok('POST', `/api/v1/webhooks/${hook.id}/test`, as(key, { body: { event: 'email.clicked' } }))
    // A real event, delivered by the worker.
    await ok('PATCH', `/api/v1/contacts/${bob.id}`, as(key, { body: { status: 'unsubscribed' } }))
    let deliveries: Json[] = []
    await eventually(async () => {
      deliveries = await ok('GET', `/api/v1/webhooks/${hook.id}/deliveries`, as(key))
      expect(deliveries.find((d) => !d.test)?.status).toBe('succeeded')
    })
    const real = deliveries.find((d) => !d.test)!
    await ok('POST', `/api/v1/webhooks/${hook.id}/deliveries/${real.id}/retry`, as(key))
    await ok('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, as(key))
    await ok('GET', `/api/v1/webhooks/${hook.id}/secret`, as(key))
    await ok('DELETE', `/api/v1/webhooks/${hook.id}`, as(key))
  })

  test('errors: every status with its schema and headers', async () => {
    // 401 with WWW-Authenticate, with and without a credential.
    expect((await call('GET', '/api/v1/contacts', as(null))).status).toBe(401)
    expect((await call('GET', '/api/v1/contacts', as('hrld_nope'))).status).toBe(401)
    // 403 names the scope.
    const reader = await t.key({ scopes: ['contacts:read'], clientId: acme })
    const denied = await call('POST', '/api/v1/contacts', as(reader, { body: { email: 'x@acme.io' } }))
    expect(denied.status).toBe(403)
    expect(denied.body.error.details.required_scope).toBe('contacts:write')
    // 404: unknown record, and a path id that is no id.
    expect((await call('GET', `/api/v1/contacts/${Bun.randomUUIDv7()}`, as(key))).status).toBe(404)
    expect((await call('GET', '/api/v1/campaigns/nope', as(key))).status).toBe(404)
    // 409 CONFLICT with existing_id; 409 INVALID_STATE with status and allowed_from.
    const dup = await call('POST', '/api/v1/contacts', as(key, { body: { email: 'ANN.LEE@acme.io' } }))
    expect(dup.body.error.details.existing_id).toBe(ann.id)
    const state = await call('DELETE', `/api/v1/campaigns/${sent.id}`, as(key))
    expect(state.body.error.code).toBe('INVALID_STATE')
    // 422 with details[], from the schema, from the service, and from a query parameter.
    const invalid = await call('POST', '/api/v1/contacts', as(key, { body: { email: 'nope', extra: 1 } }))
    expect(invalid.body.error.details.map((d: Json) => d.field).sort()).toEqual(['email', 'extra'])
    const launch = await call(
      'POST',
      `/api/v1/campaigns/${sent.id}/launch`,
      as(key, { body: { confirm: false } }),
    )
    expect(launch.body.error.details).toEqual([
      { field: 'confirm', message: 'must be true to launch a campaign' },
    ])
    expect((await call('GET', '/api/v1/messages?campaign_id=nope', as(key))).status).toBe(422)
    expect((await call('GET', '/api/v1/contacts?limit=500', as(key))).status).toBe(422)
    const events = await call(
      'POST',
      '/api/v1/webhooks',
      as(key, { body: { url: receiver.url, events: [] } }),
    )
    expect(events.status).toBe(422)
    // 400, 413, 415.
    const bad = await call(
      'POST',
      '/api/v1/contacts',
      as(key, { raw: '{"email":', headers: { 'content-type': 'application/json' } }),
    )
    expect(bad.status).toBe(400)
    const big = await call(
      'POST',
      '/api/v1/lists',
      as(key, {
        raw: `{"name":"${'x'.repeat(1_100_000)}"}`,
        headers: { 'content-type': 'application/json' },
      }),
    )
    expect(big.status).toBe(413)
    const form = await call(
      'POST',
      '/api/v1/lists',
      as(key, { raw: 'name=x', headers: { 'content-type': 'text/plain' } }),
    )
    expect(form.status).toBe(415)
    // 405 with Allow.
    const wrong = await call('PUT', '/api/v1/contacts', as(key, { body: {} }))
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toContain('GET')
  })

  test('idempotency: the key echoed, a replay marked, a reused key refused', async () => {
    const headers = { 'idempotency-key': `k-${Bun.randomUUIDv7()}` }
    const first = await call('POST', '/api/v1/lists', as(key, { body: { name: 'Once' }, headers }))
    expect(first.headers.get('idempotency-key')).toBe(headers['idempotency-key'])
    const again = await call('POST', '/api/v1/lists', as(key, { body: { name: 'Once' }, headers }))
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const reused = await call('POST', '/api/v1/lists', as(key, { body: { name: 'Twice' }, headers }))
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
  })

  test('rate limits: RateLimit-* on every answer of a limited key, Retry-After on 429', async () => {
    const limited = await t.key({ scopes: ['contacts:read'], clientId: acme, tier: 'standard' })
    const first = await call('GET', '/api/v1/contacts?limit=1', as(limited))
    expect(first.headers.get('ratelimit-limit')).toBe('100')
    let last = first
    for (let i = 0; i < 200 && last.status !== 429; i++)
      last = await call('GET', '/api/v1/contacts?limit=1', as(limited))
    expect(last.status).toBe(429)
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('every operation of the registry was answered 200 and checked', () => {
    const missing = operations.map((o) => `${o.method} ${o.path}`).filter((k) => !seen.get(k)?.has(200))
    expect(missing).toEqual([])
  })
})
