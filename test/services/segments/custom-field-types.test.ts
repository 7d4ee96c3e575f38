import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'

// A rule on a custom field means the same on either store: what SQLite's json_extract gives is
// the reference (a JSON string is text, a number a number, true and false are 1 and 0, numbers
// order before any text, text compares bytewise, case folds for ASCII letters only).

const t = await createTestApp()
const acme = await t.client('Acme')
const key = await t.key({ scopes: ['lists:write', 'contacts:write'], clientId: acme })

const VALUES: Record<string, unknown> = {
  text: 'Pro',
  lower: 'pro',
  accented: 'Éclair',
  num: 42,
  real: 4.5,
  numtext: '42',
  yes: true,
  no: false,
  nul: null,
  empty: '',
  date: '2026-03-01T00:00:00.000Z',
  obj: { a: 1 },
  none: undefined,
}
for (const [name, v] of Object.entries(VALUES)) {
  const res = await t.call('POST', '/api/v1/contacts', {
    key,
    body: {
      email: `${name}@x.io`,
      custom_fields: v === undefined ? {} : { v },
      // The text values as first names too (a text column, unlike a custom field).
      ...(typeof v === 'string' ? { first_name: v } : {}),
    },
  })
  expect(res.status).toBe(200)
}

/** The names of the contacts a one-rule segment on custom.v matches, sorted. */
async function matching(operator: string, value?: unknown, field = 'custom.v'): Promise<string[]> {
  const res = await t.call('POST', '/api/v1/segments', {
    key,
    body: {
      name: 'S',
      rule_groups: [
        { match: 'all', rules: [{ field, operator, ...(value === undefined ? {} : { value }) }] },
      ],
    },
  })
  expect(res.status).toBe(200)
  const page = await t.call('GET', `/api/v1/segments/${res.body.data.id}/contacts?limit=100`, { key })
  const names = page.body.data.map((c: { email: string }) => c.email.split('@')[0]).sort()
  expect(res.body.data.estimated_size).toBe(names.length)
  return names
}

const CASES: [string, unknown, string[]][] = [
  ['eq', 'pro', ['lower', 'text']],
  ['eq', 'éclair', []],
  ['eq', 42, ['num']],
  ['eq', '42', ['num', 'numtext']],
  ['eq', true, ['yes']],
  ['eq', 1, ['yes']],
  [
    'neq',
    42,
    ['accented', 'date', 'empty', 'lower', 'no', 'none', 'nul', 'numtext', 'obj', 'real', 'text', 'yes'],
  ],
  ['neq', 'pro', ['accented', 'date', 'empty', 'no', 'none', 'nul', 'num', 'numtext', 'obj', 'real', 'yes']],
  ['in', ['pro', 42], ['lower', 'num', 'text']],
  ['in', ['42'], ['numtext']],
  [
    'not_in',
    ['pro', 0],
    ['accented', 'date', 'empty', 'none', 'nul', 'num', 'numtext', 'obj', 'real', 'yes'],
  ],
  ['gt', 10, ['accented', 'date', 'empty', 'lower', 'num', 'numtext', 'obj', 'text']],
  ['lt', 10, ['no', 'real', 'yes']],
  ['gte', 'P', ['accented', 'lower', 'obj', 'text']],
  ['lt', 'b', ['date', 'empty', 'no', 'num', 'numtext', 'real', 'text', 'yes']],
  ['contains', '2', ['date', 'num', 'numtext']],
  ['contains', 'RO', ['lower', 'text']],
  ['not_contains', 'r', ['date', 'empty', 'no', 'none', 'nul', 'num', 'numtext', 'obj', 'real', 'yes']],
  ['starts_with', 'É', ['accented']],
  ['ends_with', '1}', ['obj']],
  ['exists', undefined, ['accented', 'date', 'lower', 'no', 'num', 'numtext', 'obj', 'real', 'text', 'yes']],
  ['not_exists', undefined, ['empty', 'none', 'nul']],
  ['after', '2026-01-01T00:00:00Z', ['accented', 'date', 'lower', 'numtext', 'obj', 'text']],
  ['before', '2026-01-01T00:00:00Z', ['empty', 'no', 'num', 'real', 'yes']],
]

// The same text in a contact column: its text affinity makes a number compare as text.
const COLUMN_CASES: [string, unknown, string[]][] = [
  ['eq', 'PRO', ['lower', 'text']],
  ['eq', 42, ['numtext']],
  ['in', ['pro', 42], ['lower', 'text']],
  ['gt', 5, ['accented', 'lower', 'text']],
  ['lt', 5, ['date', 'empty', 'numtext']],
  ['gte', 'P', ['accented', 'lower', 'text']],
  ['lt', 'b', ['date', 'empty', 'numtext', 'text']],
  ['contains', 'É', ['accented']],
  ['contains', 'é', []],
  ['exists', undefined, ['accented', 'date', 'lower', 'numtext', 'text']],
  ['neq', 'pro', ['accented', 'date', 'empty', 'no', 'none', 'nul', 'num', 'numtext', 'obj', 'real', 'yes']],
]

describe('custom field rules', () => {
  for (const [op, value, expected] of CASES)
    test(`${op} ${JSON.stringify(value)}`, async () => {
      expect(await matching(op, value)).toEqual(expected)
    })
})

describe('text column rules', () => {
  for (const [op, value, expected] of COLUMN_CASES)
    test(`first_name ${op} ${JSON.stringify(value)}`, async () => {
      expect(await matching(op, value, 'first_name')).toEqual(expected)
    })
})
