import { describe, expect, test } from 'bun:test'
import { createImportWorker } from '../../../src/services/imports/runner'
import { journeyApp } from '../../helpers/journey'

// A CSV import fires contact_created (issue 11) in each batch's transaction, as POST /contacts
// does in its own: every contact the import creates enters the client's active contact_created
// journeys once; a row that updates or skips an existing contact does not.

const j = await journeyApp()
const { t } = j
const imports = createImportWorker(t.ctx)

async function runImport(csv: string, query = '') {
  const res = await t.call('POST', `/api/v1/contacts/imports${query}`, {
    key: j.key,
    raw: csv,
    headers: { 'content-type': 'text/csv' },
  })
  expect(res.status).toBe(200)
  await imports.drain()
  return (await t.call('GET', `/api/v1/contacts/imports/${res.body.data.id}`, { key: j.key })).body.data
}

const idOf = async (email: string) =>
  (await j.call('POST', '/api/v1/contacts/search', { query: email }))[0].id as string

describe('CSV import and contact_created journeys', () => {
  test('each contact the import creates enters once; updated and skipped rows do not', async () => {
    const old = await j.contact('old@acme.io')
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'contact_created', next: 'x' },
      { id: 'x', type: 'exit' },
    ])
    const job = await runImport(
      'email,first_name\nnew1@acme.io,One\nOLD@acme.io,Old\nnew2@acme.io,Two\nnew1@acme.io,Again\n',
      '?update_existing=true',
    )
    expect(job).toMatchObject({ status: 'completed', inserted: 2, updated: 2 })
    const entered = (await j.enrollments(id)).map((e) => e.contact_id).sort()
    expect(entered).toEqual([await idOf('new1@acme.io'), await idOf('new2@acme.io')].sort())
    expect(entered).not.toContain(old)
    // The same file again creates nobody, so nobody enters.
    expect(await runImport('email\nnew1@acme.io\nnew2@acme.io\n')).toMatchObject({ inserted: 0 })
    expect(await j.enrollments(id)).toHaveLength(2)
  })

  test('with no active contact_created journey an import enrolls nobody', async () => {
    const id = await j.journey([
      { id: 't', type: 'trigger', trigger: 'contact_created', next: 'x' },
      { id: 'x', type: 'exit' },
    ])
    await j.call('POST', `/api/v1/journeys/${id}/pause`)
    expect(await runImport('email\nquiet@acme.io\n')).toMatchObject({ inserted: 1 })
    expect(await j.enrollments(id)).toEqual([])
  })
})
