import { describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { route } from '../../src/http/rest/define-operation'
import { defineVerb } from '../../src/services/verbs/define'
import { RecordId, strict } from '../../src/services/verbs/schemas'

// A route maps path, query and body onto its verb's one input; a declaration that cannot map
// is refused when the registry loads, not on the first request.

const verb = defineVerb({
  name: 'things.update',
  scope: 'any',
  input: t.Object({ id: RecordId, limit: t.Optional(t.Integer()), name: t.String() }, strict),
  mutates: true,
  run: () => ({}),
})
const base = { id: 'updateThing', tag: 'Things', summary: 'x', response: t.Object({}) }

describe('route()', () => {
  test('path ids and query members come from the input; the rest is the body', () => {
    const o = route(verb, { ...base, method: 'PATCH', path: '/things/{id}', query: ['limit'] })
    expect(o.queryMembers).toEqual(['limit'])
    expect(o.bodyMembers).toEqual(['name'])
    expect(o.auth).toBe('any')
  })

  test('a path parameter or query member the input lacks is refused', () => {
    expect(() => route(verb, { ...base, method: 'PATCH', path: '/things/{thing_id}' })).toThrow(
      'thing_id is not a member',
    )
    expect(() => route(verb, { ...base, method: 'PATCH', path: '/things/{id}', query: ['page'] })).toThrow(
      'page is not a member',
    )
  })

  test('a GET cannot take body members', () => {
    expect(() => route(verb, { ...base, method: 'GET', path: '/things/{id}' })).toThrow(
      'a GET cannot take limit, name from a body',
    )
  })
})
