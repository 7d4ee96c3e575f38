import { describe, expect, test } from 'bun:test'
import type { TObject } from '@sinclair/typebox'
import { withActor } from '../../../src/context'
import { ServiceError } from '../../../src/errors'
import { operations } from '../../../src/http/rest/registry'
import { systemActor } from '../../../src/services/actors/actor'
import { invoke } from '../../../src/services/verbs/invoke'
import { createTestApp } from '../../helpers/app'

// Every REST operation is a verb behind a path, and every verb answers through `invoke` with
// no HTTP at all: the portal, MCP, the CLI and jobs can reach everything REST can.

const app = await createTestApp()
const ctx = withActor(app.ctx, systemActor('registry-test'), 'registry-test')
const MISSING = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'

describe('the operation registry', () => {
  test('every operation points at a verb', () => {
    expect(operations.filter((o) => !o.verb).map((o) => o.id)).toEqual([])
  })

  test('verb names are unique and <entity>.<action>', () => {
    const names = operations.map((o) => o.verb?.name ?? o.id)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    for (const n of names) expect(n).toMatch(/^[a-z-]+(\.[a-z-]+)+$/)
  })

  test('path parameters are members of the verb input', () => {
    for (const o of operations) {
      const members = Object.keys(((o.verb?.input ?? {}) as TObject).properties ?? {})
      for (const [, name] of o.path.matchAll(/\{(\w+)\}/g)) expect(members, `${o.id}`).toContain(name!)
    }
  })

  // Searches and previews are POSTs for their bodies, and change nothing; so is a test of a
  // client's sending account (it connects and logs in, and sends and stores nothing).
  const postReads = new Set(['contacts.search', 'templates.preview', 'clients.sending.test'])
  test('a GET never mutates; every other method does, but for searches, previews and account tests', () => {
    for (const o of operations)
      expect(o.verb?.mutates, o.id).toBe(o.method !== 'GET' && !postReads.has(o.verb!.name))
  })

  // Each read through invoke: a record that does not exist is a typed 404, a list answers.
  const reads = operations.filter((o) => o.method === 'GET' && o.verb && !o.rawParams?.length)
  test.each(reads.map((o) => [o.id, o] as const))('%s answers through invoke', async (_, o) => {
    const ids = Object.fromEntries([...o.path.matchAll(/\{(\w+)\}/g)].map(([, n]) => [n!, MISSING]))
    try {
      const result = await invoke(o.verb!, ctx, ids)
      expect(result).toBeDefined()
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceError)
      const e = err as ServiceError
      // A platform-wide caller must name the client of a per-client report (the spec's tenancy).
      if (e.code === 'VALIDATION_FAILED') expect(JSON.stringify(e.details)).toContain('client_id')
      else expect(e.code).toBe('NOT_FOUND')
    }
  })
})
