import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import { createTestApp } from '../helpers/app'

// An integrator's view of /openapi.json: generate TypeScript types from the served document
// with openapi-typescript and type-check a small openapi-fetch client against them. The client
// uses what the document promises (named schemas, typed error details, the CSV media type,
// typed segment rules, launch's confirm: true), so a document that regresses fails to compile.

const t = await createTestApp()
const ROOT = join(import.meta.dir, '../..')
// Under node_modules so the program resolves openapi-fetch like a project depending on it.
mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true })
const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/herald-sdk-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const CLIENT = `
import createClient from 'openapi-fetch'
import type { components, paths } from './herald'

type Contact = components['schemas']['Contact']
type SegmentRule = components['schemas']['SegmentRule']

const client = createClient<paths>({
  baseUrl: 'http://localhost:8080',
  headers: { Authorization: 'Bearer hrld_example' },
})

/** The new contact, or the first failing field of a 422, or the existing id of a 409. */
export async function createContact(email: string): Promise<Contact | string> {
  const { data, error, response } = await client.POST('/api/v1/contacts', {
    params: { query: { client_id: 'cli_0193a4f0000070008000000000000001' } },
    body: { email, first_name: 'Ann', custom_fields: { plan: 'pro', seats: 3 } },
  })
  if (data) {
    const contact: Contact = data.data
    const status: 'subscribed' | 'unsubscribed' | 'bounced' | 'complained' | 'blocked' = contact.status
    return status === 'subscribed' ? contact : contact.id
  }
  if (response.status === 422 && error.error.code === 'VALIDATION_FAILED') {
    const field: string = error.error.details[0].field
    const message: string = error.error.details[0].message
    return field + message
  }
  if (error.error.code === 'CONFLICT') return error.error.details.existing_id
  if (error.error.code === 'FORBIDDEN') return error.error.details?.required_scope ?? error.error.message
  return error.error.request_id
}

/** The contacts as CSV text: the export is declared text/csv. */
export async function exportContacts(): Promise<string> {
  const { data, error } = await client.GET('/api/v1/contacts/export', { parseAs: 'text' })
  if (error) throw new Error(error.error.message)
  const csv: string = data
  return csv
}

export async function launch(id: string) {
  const { data } = await client.POST('/api/v1/campaigns/{id}/launch', {
    params: { path: { id } },
    body: { confirm: true },
  })
  const accepted: boolean | undefined = data?.data.accepted
  // @ts-expect-error launch needs confirm: true, and the document says so
  await client.POST('/api/v1/campaigns/{id}/launch', { params: { path: { id } }, body: { confirm: false } })
  return accepted
}

export const rules: SegmentRule[] = [
  { field: 'email', operator: 'ends_with', value: '@acme.io' },
  { field: 'custom.plan', operator: 'in', value: ['pro', 'team'] },
  { field: 'created_at', operator: 'within_last_days', value: 30 },
  { field: 'list', operator: 'not_in', value: ['lst_0193a4f2000070008000000000000002'] },
  { field: 'event', event: 'opened', operator: 'has', within_days: 14, min_count: 2 },
]
// @ts-expect-error an operator the server refuses
export const badOperator: SegmentRule = { field: 'email', operator: 'like', value: 'x' }
// @ts-expect-error an activity the server does not know
export const badEvent: SegmentRule = { field: 'event', event: 'forwarded', operator: 'has' }

export async function subscribe() {
  const { data } = await client.POST('/api/v1/webhooks', {
    params: { query: {} },
    body: { url: 'https://hooks.example.net/herald', events: ['email.opened', 'reply.received'] },
  })
  // @ts-expect-error event names are an enum
  await client.POST('/api/v1/webhooks', { params: { query: {} }, body: { url: 'https://x.example', events: ['email.read'] } })
  return data?.data.secret
}
`

describe('SDK generated from /openapi.json', () => {
  test('openapi-typescript types + an openapi-fetch client type-check with tsc --strict', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    // What the program below relies on, asserted where a failure is easiest to read.
    expect(Object.keys(doc.paths['/api/v1/contacts/export'].get.responses['200'].content)).toEqual([
      'text/csv',
    ])
    expect(doc.components.schemas.Contact).toBeDefined()

    const types = astToString(await openapiTS(doc))
    writeFileSync(join(dir, 'herald.ts'), types)
    writeFileSync(join(dir, 'client.ts'), CLIENT)
    const tsc = Bun.spawnSync(
      [
        process.execPath,
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--lib',
        'es2022,dom',
        join(dir, 'client.ts'),
      ],
      { cwd: dir },
    )
    const output = tsc.stdout.toString() + tsc.stderr.toString()
    expect(output).toBe('')
    expect(tsc.exitCode).toBe(0)
    // The generated types name the schemas instead of repeating them inline.
    expect(types).toContain('Contact: {')
    expect(types).toContain('components["schemas"]["Contact"]')
  }, 120_000)
})
