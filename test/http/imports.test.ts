import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows } from '../../src/db/raw'
import { createImportWorker } from '../../src/services/imports/runner'
import { createTestApp } from '../helpers/app'

const t = await createTestApp()
// Imports are driven pass by pass: the test decides when the worker runs.
const imports = createImportWorker(t.ctx)
const acme = await t.client('Acme')
const globex = await t.client('Globex')
const key = await t.key({ scopes: ['contacts:write', 'contacts:read', 'lists:write'], clientId: acme })
const globexKey = await t.key({ scopes: ['contacts:write', 'contacts:read'], clientId: globex })

async function runImport(csv: string | Uint8Array, query = '', k = key, type = 'text/csv') {
  const res = await t.call('POST', `/api/v1/contacts/imports${query}`, {
    key: k,
    raw: csv,
    headers: { 'content-type': type },
  })
  expect(res.status).toBe(200)
  expect(['queued', 'running', 'completed']).toContain(res.body.data.status)
  await imports.drain()
  const done = await t.call('GET', `/api/v1/contacts/imports/${res.body.data.id}`, { key: k })
  return done.body.data
}

const MESSY =
  '\uFEFFEmail;First Name;Last Name;Company;Phone;Plan;Notes\r\n' +
  'ann@acme.io;Ann;Lee;"Acme; Inc";+1 415 555 0100;pro;"said ""hi""\r\non two lines"\r\n' +
  '\r\n' +
  'bob@acme.io;Bob;;;;free;\r\n' +
  'not-an-email;X;;;;;\r\n' +
  'cat@acme.io;Cat;;;12;;\r\n' +
  ';;;;;;\r\n' +
  'ANN@acme.io;Annie;;;;;\r\n'

describe('CSV import', () => {
  test('BOM, CRLF, ; delimiter, quoted fields, blank lines; bad rows reported without aborting', async () => {
    const job = await runImport(MESSY)
    expect(job).toMatchObject({
      status: 'completed',
      processed: 5,
      inserted: 2,
      updated: 0,
      skipped: 3,
      total_rows: 5,
    })
    expect(job.errors).toEqual([
      { row: 4, message: 'email "not-an-email" is not a valid address' },
      { row: 5, message: 'phone "12" is not a phone number (use +<country code>…)' },
    ])
    const found = await t.call('POST', '/api/v1/contacts/search', { key, body: { query: 'ann' } })
    expect(found.body.data[0]).toMatchObject({
      email: 'ann@acme.io',
      first_name: 'Ann',
      company: 'Acme; Inc',
      phone: '+14155550100',
      custom_fields: { Plan: 'pro', Notes: 'said "hi"\r\non two lines' },
    })
  })

  test('a re-run of the same file changes nothing', async () => {
    const file = 'email,first_name,plan\nrerun1@acme.io,One,a\nrerun2@acme.io,Two,b\nbob@acme.io,Bob,free\n'
    const first = await runImport(file, '?update_existing=true')
    expect(first).toMatchObject({ inserted: 2, updated: 1 }) // bob gains the lower-case "plan" field
    const before = (await t.call('GET', '/api/v1/contacts', { key })).body.pagination.total
    for (const query of ['', '?update_existing=true']) {
      const again = await runImport(file, query)
      expect(again).toMatchObject({ status: 'completed', processed: 3, inserted: 0, updated: 0, skipped: 3 })
    }
    expect((await t.call('GET', '/api/v1/contacts', { key })).body.pagination.total).toBe(before)
  })

  test('update_existing merges values and custom fields; list assignment counts members exactly', async () => {
    const list = (await t.call('POST', '/api/v1/lists', { key, body: { name: 'Imported' } })).body.data
    const job = await runImport(
      'email,company,tier\nbob@acme.io,Bob Co,gold\nnew@acme.io,New,silver\n',
      `?update_existing=true&list_id=${list.id}`,
    )
    expect(job).toMatchObject({ inserted: 1, updated: 1, skipped: 0 })
    expect((await t.call('GET', `/api/v1/lists/${list.id}`, { key })).body.data.member_count).toBe(2)
    const bob = (await t.call('POST', '/api/v1/contacts/search', { key, body: { query: 'bob@acme.io' } }))
      .body.data[0]
    expect(bob).toMatchObject({
      company: 'Bob Co',
      custom_fields: { Plan: 'free', plan: 'free', tier: 'gold' },
    })
    const rerun = await runImport(
      'email,company,tier\nbob@acme.io,Bob Co,gold\nnew@acme.io,New,silver\n',
      `?update_existing=true&list_id=${list.id}`,
    )
    expect(rerun).toMatchObject({ inserted: 0, updated: 0, skipped: 2 })
    expect((await t.call('GET', `/api/v1/lists/${list.id}`, { key })).body.data.member_count).toBe(2)
  })

  test('multipart upload with a "file" part', async () => {
    const form = new FormData()
    form.append('file', new Blob(['email\nmulti@acme.io\n'], { type: 'text/csv' }), 'c.csv')
    const res = await t.app.handle(
      new Request('http://localhost:8080/api/v1/contacts/imports', {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${key}` },
      }),
    )
    expect(res.status).toBe(200)
    await imports.drain()
    const found = await t.call('POST', '/api/v1/contacts/search', { key, body: { query: 'multi' } })
    expect(found.body.pagination.total).toBe(1)
  })

  test('multipart: the "file" part is kept even without a filename; without one → 422 on file; other parts are ignored', async () => {
    const post = (form: FormData) =>
      t.app.handle(
        new Request('http://localhost:8080/api/v1/contacts/imports', {
          method: 'POST',
          body: form,
          headers: { authorization: `Bearer ${key}` },
        }),
      )
    const bare = new FormData()
    bare.append('note', 'hello')
    bare.append('other', new Blob(['email\nignored@acme.io\n']), 'other.csv')
    bare.append('file', 'email\nbare-part@acme.io\n')
    expect((await post(bare)).status).toBe(200)
    const none = new FormData()
    none.append('other', new Blob(['email\nx@acme.io\n']), 'other.csv')
    const refused = await post(none)
    expect(refused.status).toBe(422)
    expect(((await refused.json()) as { error: { details: unknown } }).error.details).toEqual([
      { field: 'file', message: 'a multipart part named "file" is required' },
    ])
    await imports.drain()
    const found = await t.call('POST', '/api/v1/contacts/search', { key, body: { query: 'bare-part' } })
    expect(found.body.pagination.total).toBe(1)
    const ignored = await t.call('POST', '/api/v1/contacts/search', {
      key,
      body: { query: 'ignored@acme.io' },
    })
    expect(ignored.body.pagination.total).toBe(0)
  })

  test('phones in human formats become E.164; invalid ones refuse the row, as POST /contacts does, and are reported', async () => {
    const rows: [string, string, string | null][] = [
      // [email, phone as written, stored phone or null when the row is refused]
      ['us@phones.io', '+1 (415) 555-0132', '+14155550132'],
      ['uk@phones.io', '+44 20 7946 0958', '+442079460958'],
      ['de@phones.io', '+49 30 1234567', '+49301234567'],
      ['fr@phones.io', '+33 6 12 34 56 78', '+33612345678'],
      ['dots@phones.io', '+1.212.555.0199', '+12125550199'],
      ['trunk@phones.io', '+44 (0)20 7946 0958', '+442079460958'],
      ['e164@phones.io', '+14155550100', '+14155550100'],
      ['short@phones.io', '+1 (415) 555-01', null],
      ['area0@phones.io', '+1 (055) 555-0132', null],
      // Plus and digits of a possible length, but no such number: the old E.164 shortcut let it in.
      ['fake164@phones.io', '+15550002222', null],
      ['nocc@phones.io', '415-555-0132', null],
    ]
    const csv = `email,company,phone\n${rows.map(([e, p]) => `${e},"Phones, Inc.",${p}`).join('\n')}\n`
    const job = await runImport(csv)
    const refused = rows.flatMap(([, p, s], i) => (s === null ? [{ row: i + 2, phone: p }] : []))
    expect(job).toMatchObject({
      status: 'completed',
      inserted: rows.length - refused.length,
      skipped: refused.length,
    })
    expect(job.errors).toEqual(
      refused.map(({ row, phone }) => ({
        row,
        message: `phone "${phone}" is not a phone number (use +<country code>…)`,
      })),
    )
    for (const [email, phone, stored] of rows) {
      const found = await t.call('POST', '/api/v1/contacts/search', { key, body: { query: email } })
      if (stored === null) expect(found.body.data).toEqual([])
      else expect(found.body.data[0]).toMatchObject({ email, phone: stored, company: 'Phones, Inc.' })
      // The JSON API takes and refuses the same phones.
      const made = await t.call('POST', '/api/v1/contacts', { key, body: { email: `api.${email}`, phone } })
      if (stored === null) expect(made.body.error.details[0].field).toBe('phone')
      else expect(made.body.data.phone).toBe(stored)
    }
  })

  test('a cell with a NUL in it refuses its row, quoted with the NUL escaped; the rest of the file imports', async () => {
    // PostgreSQL cannot store U+0000: quoted raw into the job's errors it failed the whole import.
    const job = await runImport(
      'email,status,timezone\nnul@acme.io,sub\u0000scribed,\nzone@acme.io,,Mars/Ol\u0000ympus\nfine@acme.io,subscribed,\n',
    )
    expect(job).toMatchObject({ status: 'completed', processed: 3, inserted: 1, skipped: 2, failure: null })
    expect(job.errors).toEqual([
      { row: 2, message: 'status "sub\\u0000scribed" must be subscribed, unsubscribed or blocked' },
      { row: 3, message: 'timezone "Mars/Ol\\u0000ympus" is not an IANA time zone' },
    ])
  })

  test('a file without an email column fails the job with the reason', async () => {
    const job = await runImport('name,company\nx,y\n')
    expect(job.status).toBe('failed')
    expect(job.failure).toContain('no email column')
  })

  const errors: [string, { raw: string; type?: string; query?: string }, number, string, string?][] = [
    ['JSON is not CSV', { raw: '{}', type: 'application/json' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['empty file', { raw: '' }, 422, 'VALIDATION_FAILED', 'body'],
    [
      'list of another client',
      { raw: 'email\na@b.io\n', query: '?list_id=01a207fe-5049-7476-b6cd-bf3b1f254347' },
      422,
      'VALIDATION_FAILED',
      'list_id',
    ],
    [
      'bad update_existing',
      { raw: 'email\na@b.io\n', query: '?update_existing=maybe' },
      422,
      'VALIDATION_FAILED',
      'update_existing',
    ],
  ]
  for (const [name, req, status, code, field] of errors) {
    test(`${name} → ${status}`, async () => {
      const res = await t.call('POST', `/api/v1/contacts/imports${req.query ?? ''}`, {
        key,
        raw: req.raw,
        headers: { 'content-type': req.type ?? 'text/csv' },
      })
      expect(res.status).toBe(status)
      expect(res.body.error.code).toBe(code)
      if (field) expect(res.body.error.details[0].field).toBe(field)
    })
  }

  test("another client's import is 404", async () => {
    const job = await runImport('email\nsolo@acme.io\n')
    expect((await t.call('GET', `/api/v1/contacts/imports/${job.id}`, { key: globexKey })).status).toBe(404)
  })
})

describe('CSV export', () => {
  test('streams every contact with one column per custom field, and re-imports into another client', async () => {
    const res = await t.app.handle(
      new Request('http://localhost:8080/api/v1/contacts/export', {
        headers: { authorization: `Bearer ${key}` },
      }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/csv')
    const csv = await res.text()
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n')
    expect(lines[0]).toBe(
      'id,client_id,email,first_name,last_name,company,phone,status,timezone,created_at,updated_at,Notes,Plan,plan,tier',
    )
    const total = (await t.call('GET', '/api/v1/contacts', { key })).body.pagination.total
    const job = await runImport(csv, '', globexKey)
    expect(job).toMatchObject({ status: 'completed', inserted: total, skipped: 0 })
    const ann = (
      await t.call('POST', '/api/v1/contacts/search', { key: globexKey, body: { query: 'ann@acme.io' } })
    ).body.data[0]
    expect(ann).toMatchObject({ company: 'Acme; Inc', custom_fields: { Plan: 'pro' }, client_id: globex })
  })

  test('needs contacts:read', async () => {
    const k = await t.key({ scopes: ['lists:write'], clientId: acme })
    expect((await t.call('GET', '/api/v1/contacts/export', { key: k })).status).toBe(403)
  })
})

describe('contact totals', () => {
  test('the maintained per-client total equals a real count after imports, creates and erasure', async () => {
    const real = async (clientId: string) =>
      (
        await rawRows<{ n: number }>(
          t.ctx.db,
          sql`SELECT CAST(count(*) AS INTEGER) AS n FROM contacts WHERE client_id = ${clientId}`,
        )
      )[0]!.n
    const c = (await t.call('POST', '/api/v1/contacts', { key, body: { email: 'count.me@acme.io' } })).body
      .data
    await t.call('DELETE', `/api/v1/contacts/${c.id}`, { key })
    await runImport('email\ncount1@acme.io\ncount2@acme.io\ncount1@acme.io\n')
    for (const [k, client] of [
      [key, acme],
      [globexKey, globex],
    ] as const) {
      const listed = await t.call('GET', '/api/v1/contacts?limit=1', { key: k })
      expect(listed.body.pagination.total).toBe(await real(client))
    }
    const all = await t.call('GET', '/api/v1/contacts?limit=1')
    expect(all.body.pagination.total).toBe(
      (await rawRows<{ n: number }>(t.ctx.db, sql`SELECT CAST(count(*) AS INTEGER) AS n FROM contacts`))[0]!
        .n,
    )
    const one = await t.call('GET', `/api/v1/contacts?limit=1&client_id=${acme}`)
    expect(one.body.pagination.total).toBe(await real(acme))
  })
})

describe('upload edge cases', () => {
  const importsDir = () => {
    const { readdirSync, existsSync } = require('node:fs') as typeof import('node:fs')
    const { join } = require('node:path') as typeof import('node:path')
    const files = (d: string) => (existsSync(join(t.dataDir, d)) ? readdirSync(join(t.dataDir, d)) : [])
    return { uploads: files('uploads'), imports: files('imports') }
  }

  test('a malformed multipart body → 400, and nothing is left on disk', async () => {
    await imports.drain()
    const before = importsDir()
    const res = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: '--xx\r\ngarbage',
      headers: { 'content-type': 'multipart/form-data; boundary=xx' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('INVALID_REQUEST')
    const empty = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: '',
      headers: { 'content-type': 'text/csv' },
    })
    expect(empty.status).toBe(422)
    expect(importsDir()).toEqual(before)
  })

  test('Idempotency-Key compares the uploaded file itself, not just its size', async () => {
    const headers = { 'content-type': 'text/csv', 'idempotency-key': 'imp-same-size' }
    const first = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: 'email\nsz1@acme.io\n',
      headers,
    })
    expect(first.status).toBe(200)
    const replay = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: 'email\nsz1@acme.io\n',
      headers,
    })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.data.id).toBe(first.body.data.id)
    const other = await t.call('POST', '/api/v1/contacts/imports', {
      key,
      raw: 'email\nsz2@acme.io\n',
      headers,
    })
    expect(other.status).toBe(422)
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
    await imports.drain()
  })

  test('Idempotency-Key covers the query: the same body for another client is a different request', async () => {
    const headers = { 'idempotency-key': 'list-per-client' }
    const a = await t.call('POST', `/api/v1/lists?client_id=${acme}`, { body: { name: 'L' }, headers })
    expect(a.status).toBe(200)
    const b = await t.call('POST', `/api/v1/lists?client_id=${globex}`, { body: { name: 'L' }, headers })
    expect(b.status).toBe(422)
    expect(b.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
  })

  test('blank names are refused', async () => {
    const res = await t.call('POST', '/api/v1/lists', { key, body: { name: '   ' } })
    expect(res.status).toBe(422)
    expect(res.body.error.details).toEqual([{ field: 'name', message: 'must not be blank' }])
  })

  test('a segment with more values than SQLite can bind → 422, not 500', async () => {
    const k = await t.key({ scopes: ['lists:write'], clientId: acme })
    const rules = Array.from({ length: 11 }, () => ({
      field: 'email',
      operator: 'in',
      value: Array.from({ length: 1000 }, (_, i) => `${i}@x.io`),
    }))
    const res = await t.call('POST', '/api/v1/segments', {
      key: k,
      body: { name: 'Big', rule_groups: [{ match: 'any', rules }] },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.details[0].field).toBe('rule_groups')
  })
})
