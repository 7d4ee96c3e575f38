import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { idempotencyKeys, messagePayloads, messages } from '../../src/db/schema'
import { createSendWorker } from '../../src/queue/worker'
import { sendDeps } from '../../src/sending'
import { createTestApp } from '../helpers/app'
import { serveBinary, useBinary } from '../helpers/binary'
import { allChannels, recordingProvider } from '../helpers/sender'
import { storeEnv } from '../helpers/store-env'
import { makeUser, PORTAL_ENV, signIn } from '../http/admin/portal-helpers'

// What one tenant, or a key holding the wrong scopes, could do to another or to the instance:
// send as another tenant's sender, suspend clients, rotate webhook secrets, run a whole MCP batch
// on one rate-limit token, and find secrets in the Idempotency-Key store. One row per hole.

const t = await createTestApp({ overHttp: true, env: { ...PORTAL_ENV, HERALD_WEBHOOK_ALLOW_PRIVATE: '1' } })
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const acmeAdmin = await t.key({ scopes: ['admin:*'], clientId: acme })
const acmeWriter = await t.key({ scopes: ['campaigns:write', 'contacts:write'], clientId: acme })
const globexAdmin = await t.key({ scopes: ['admin:*'], clientId: globex })
/** Platform-wide, but only campaigns:write (or only analytics:read). */
const platformWriter = await t.key({ scopes: ['campaigns:write'] })
const platformReader = await t.key({ scopes: ['analytics:read'] })

const provider = recordingProvider()
const worker = createSendWorker(t.ctx, sendDeps, { providers: allChannels(provider) })

const ok = async (method: string, path: string, body: unknown, key: string) => {
  const r = await t.call(method, path, { key, body })
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${r.text}`)
  return r.body.data
}

const ann = await ok('POST', '/api/v1/contacts', { email: 'ann@acme.example' }, acmeAdmin)
const acmeSender = await ok(
  'POST',
  '/api/v1/senders',
  { from_email: 'news@acme.example', from_name: 'Acme' },
  acmeAdmin,
)
const ceo = await ok(
  'POST',
  '/api/v1/senders',
  { from_email: 'ceo@tenant-b.example', from_name: 'Tenant B CEO', reply_to: 'ceo@tenant-b.example' },
  globexAdmin,
)
const fromOf = (email: string) => provider.sent.filter((m) => m.channel === 'email' && m.from.email === email)
const detailFields = (body: { error?: { details?: { field: string }[] } }) =>
  (body.error?.details ?? []).map((d) => d.field)

/** A tools/call over the in-process MCP door. */
async function mcpCall(key: string, name: string, args: Record<string, unknown>) {
  const r = await t.call('POST', '/mcp/v1', {
    key,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  return r.body.result as { isError?: boolean; structuredContent: { error?: { code: string } } }
}

const storedRow = async (key: string) =>
  (await t.ctx.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key)).limit(1))[0]

/**
 * A create or rotate that answers a secret, sent twice with one Idempotency-Key: the replay
 * answers the same resource with the secret masked, and the stored row never holds the secret.
 */
async function replayMasksSecret(
  path: string,
  body: unknown,
  secretOf: (data: Record<string, unknown>) => string,
  idOf: (data: Record<string, unknown>) => unknown,
) {
  const key = `secret-${crypto.randomUUID()}`
  const headers = { 'idempotency-key': key }
  const first = await t.call('POST', path, { headers, body })
  expect(first.status, first.text).toBe(200)
  const secret = secretOf(first.body.data)
  expect(secret.length).toBeGreaterThan(20)
  const row = (await storedRow(key))!
  expect(row.status).toBe(200)
  expect(row.responseBody).not.toContain(secret)
  const replay = await t.call('POST', path, { headers, body })
  expect(replay.status).toBe(200)
  expect(replay.headers.get('idempotent-replayed')).toBe('true')
  expect(replay.text).not.toContain(secret)
  expect(idOf(replay.body.data)).toBe(idOf(first.body.data) as never)
  expect(secretOf(replay.body.data)).toMatch(/•/)
}

interface Row {
  name: string
  run(): Promise<void>
}

const rows: Row[] = [
  {
    name: "1. a tenant key sending with another client's sender_id is 422 naming sender_id; nothing queued",
    async run() {
      const before = provider.sent.length
      const r = await t.call('POST', '/api/v1/messages', {
        key: acmeWriter,
        body: { contact_id: ann.id, subject: 'Hi', body_text: 'Hello', sender_id: ceo.id },
      })
      expect(r.status, r.text).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_FAILED')
      expect(detailFields(r.body)).toEqual(['sender_id'])
      expect(r.text).not.toContain('tenant-b.example')
      await worker.drain()
      expect(provider.sent.length).toBe(before)
      expect(fromOf('ceo@tenant-b.example')).toEqual([])
    },
  },
  {
    name: "1. a platform-wide key sending for one client with another client's sender_id is 422 naming sender_id",
    async run() {
      const r = await t.call('POST', `/api/v1/messages?client_id=${acme}`, {
        key: platformWriter,
        body: { contact_id: ann.id, subject: 'Hi', body_text: 'Hello', sender_id: ceo.id },
      })
      expect(r.status, r.text).toBe(422)
      expect(detailFields(r.body)).toEqual(['sender_id'])
      // Its own client's sender still sends.
      const own = await t.call('POST', `/api/v1/messages?client_id=${acme}`, {
        key: platformWriter,
        body: { contact_id: ann.id, subject: 'Hi', body_text: 'Hello', sender_id: acmeSender.id },
      })
      expect(own.status, own.text).toBe(200)
      await worker.drain()
      expect(fromOf('news@acme.example').length).toBe(1)
      expect(fromOf('ceo@tenant-b.example')).toEqual([])
    },
  },
  {
    name: '1. the send worker never sends from a foreign sender_id stored before the check existed',
    async run() {
      const queued = await ok(
        'POST',
        '/api/v1/messages',
        { contact_id: ann.id, subject: 'Planted', body_text: 'Hello', sender_id: acmeSender.id },
        acmeWriter,
      )
      // A row written before the check: its payload names Globex's sender.
      const row = (await t.ctx.db.select().from(messages).where(eq(messages.id, queued.id)).limit(1))[0]!
      await t.ctx.db
        .update(messagePayloads)
        .set({ senderId: ceo.id })
        .where(eq(messagePayloads.messageSeq, row.seq))
      await worker.drain()
      expect(fromOf('ceo@tenant-b.example')).toEqual([])
      expect(provider.sent.filter((m) => m.channel === 'email' && m.subject === 'Planted')).toEqual([])
      const read = await ok('GET', `/api/v1/messages/${queued.id}`, undefined, acmeAdmin)
      expect(read.status).toBe('failed')
    },
  },
  {
    name: '4. a platform-wide key without admin:* cannot rename or suspend a client (REST and MCP)',
    async run() {
      for (const key of [platformReader, platformWriter]) {
        const r = await t.call('PATCH', `/api/v1/clients/${globex}`, { key, body: { status: 'suspended' } })
        expect(r.status, r.text).toBe(403)
        expect(r.body.error.details.required_scope).toBe('admin:*')
        const tool = await mcpCall(key, 'update_client', { id: globex, name: 'Owned' })
        expect(tool.isError).toBe(true)
        expect(tool.structuredContent.error?.code).toBe('FORBIDDEN')
      }
      const still = await ok('GET', `/api/v1/clients/${globex}`, undefined, t.adminKey)
      expect(still).toMatchObject({ name: 'Globex', status: 'active' })
      // Creating a client stays open to any platform-wide key; renaming is for admin:*.
      expect(
        (await t.call('POST', '/api/v1/clients', { key: platformReader, body: { name: 'New' } })).status,
      ).toBe(200)
      const renamed = await t.call('PATCH', `/api/v1/clients/${globex}`, { body: { name: 'Globex Inc' } })
      expect(renamed.status, renamed.text).toBe(200)
    },
  },
  {
    name: '5. rotating a webhook secret needs admin:* (REST, MCP and a member in the portal)',
    async run() {
      const hook = await ok(
        'POST',
        '/api/v1/webhooks',
        { url: 'http://127.0.0.1:9/hook', events: ['email.delivered'] },
        acmeAdmin,
      )
      const r = await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { key: acmeWriter })
      expect(r.status, r.text).toBe(403)
      expect(r.body.error.details.required_scope).toBe('admin:*')
      const tool = await mcpCall(acmeWriter, 'rotate_webhook_secret', { id: hook.id })
      expect(tool.structuredContent.error?.code).toBe('FORBIDDEN')
      const member = await signIn(t, await makeUser(t, { role: 'member', clients: [acme] }))
      const page = await member.get(`/admin/webhooks/${hook.id}`)
      expect(page.status).toBe(200)
      expect(page.text).not.toContain(`/admin/webhooks/${hook.id}/rotate`)
      expect((await member.get(`/admin/webhooks/${hook.id}/rotate`)).status).toBe(403)
      expect((await member.post(`/admin/webhooks/${hook.id}/rotate`)).status).toBe(403)
      const secret = await ok('GET', `/api/v1/webhooks/${hook.id}/secret`, undefined, acmeAdmin)
      expect(secret).toMatchObject({ secret: hook.secret, previous_secret: null })
      expect(
        (await t.call('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { key: acmeAdmin })).status,
      ).toBe(200)
    },
  },
  {
    name: '8. a replayed POST /api-keys answers the key masked; the stored answer holds no key',
    run: async () =>
      await replayMasksSecret(
        '/api/v1/api-keys',
        { name: 'replayed', scopes: ['contacts:read'], client_id: acme },
        (d) => d.key as string,
        (d) => d.id,
      ),
  },
  {
    name: '8. a replayed webhook create and rotate-secret answer whsec_ masked; nothing stored in clear',
    async run() {
      const body = { url: 'http://127.0.0.1:9/replayed', events: ['email.opened'] }
      await replayMasksSecret(
        `/api/v1/webhooks?client_id=${acme}`,
        body,
        (d) => d.secret as string,
        (d) => d.id,
      )
      const hook = await ok('POST', '/api/v1/webhooks', body, acmeAdmin)
      await replayMasksSecret(
        `/api/v1/webhooks/${hook.id}/rotate-secret`,
        undefined,
        (d) => d.secret as string,
        (d) => d.id,
      )
    },
  },
  {
    name: '8. a replayed OAuth client create answers client_secret masked; nothing stored in clear',
    run: async () =>
      await replayMasksSecret(
        '/api/v1/oauth-clients',
        {
          name: 'Replayed app',
          redirect_uris: ['https://app.example/cb'],
          confidential: true,
          scopes: ['contacts:read'],
        },
        (d) => d.client_secret as string,
        (d) => d.oauth_client_id,
      ),
  },
]

describe('security: tenancy, admin-only operations, secrets at rest', () => {
  for (const row of rows) test(row.name, row.run)
})

// Over real HTTP against the compiled executable, with a standard-tier key (burst 100).
const bin = useBinary('herald-sec-tenancy-')
const bootstrap = `hrld_${'Sec0'.repeat(8)}`
let server: Awaited<ReturnType<typeof serveBinary>> | undefined

beforeAll(async () => {
  const env = {
    ...process.env,
    ...(await storeEnv()),
    HERALD_LOG: 'json',
    HERALD_BOOTSTRAP_API_KEY: bootstrap,
  } as Record<string, string>
  server = await serveBinary(bin, join(bin.work, 'data'), env, 'ignore')
}, 60_000)

afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

/** One JSON-RPC batch of `n` create_contact calls, numbered from `from`. */
async function batch(url: string, key: string, from: number, n: number) {
  const calls = Array.from({ length: n }, (_, i) => ({
    jsonrpc: '2.0',
    id: from + i,
    method: 'tools/call',
    params: { name: 'create_contact', arguments: { email: `b${from + i}@batch.example` } },
  }))
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
    },
    body: JSON.stringify(calls),
  })
}

describe('security: MCP batches against the binary', () => {
  test('6. a JSON-RPC batch takes one rate-limit token per call; a batch the bucket cannot pay is 429 and runs nothing', async () => {
    const base = server!.base
    const rest = async (path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bootstrap}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(r.status).toBe(200)
      return (await r.json()).data
    }
    const client = await rest('/api/v1/clients', { name: 'Batch' })
    const key = (
      await rest('/api/v1/api-keys', { name: 'std', scopes: ['contacts:write'], client_id: client.id })
    ).key as string
    const url = `${base}/mcp/v1`

    const first = await batch(url, key, 0, 100)
    expect(first.status).toBe(200)
    const answers = (await first.json()) as { result?: { isError?: boolean } }[]
    expect(answers.length).toBe(100)
    expect(answers.every((a) => a.result && !a.result.isError)).toBe(true)
    // The hundred calls took the hundred tokens of the burst (a few refill meanwhile).
    expect(Number(first.headers.get('ratelimit-remaining'))).toBeLessThan(20)

    const second = await batch(url, key, 100, 100)
    expect(second.status).toBe(429)
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await second.json()).error.code).toBe('RATE_LIMITED')

    // None of the refused batch ran.
    const listed = await fetch(`${base}/api/v1/contacts?client_id=${client.id}&limit=1`, {
      headers: { authorization: `Bearer ${bootstrap}` },
    })
    expect((await listed.json()).pagination.total).toBe(100)
  }, 60_000)
})
