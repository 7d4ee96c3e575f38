import { describe, expect, test } from 'bun:test'
import { type TSchema, Type as t } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { type FieldError, validate } from '../../src/lib/validate'

// validate() is what every door's 422 says (DESIGN §4: details [{field, message}] for every
// failure, each naming the precise field). A value that fails a union reports every failure of
// the variant it evidently means, at each failure's own path; with no evident variant, one
// message at the union's path. FC_SEED=<n> replays a failing property run.

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined
const strict = { additionalProperties: false }
const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])

const TimeOfDay = t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' })
const Window = t.Object(
  {
    days: t.Array(t.Integer({ minimum: 1, maximum: 7 }), { minItems: 1, maxItems: 7 }),
    start: TimeOfDay,
    end: TimeOfDay,
  },
  strict,
)
const Delay = t.Union([
  t.String({ maxLength: 8 }),
  t.Object(
    { days: t.Optional(t.Integer({ minimum: 0 })), hours: t.Optional(t.Integer({ minimum: 0 })) },
    { ...strict, minProperties: 1 },
  ),
])
// A union of objects told apart by a literal member, as a tagged input would be.
const Channel = t.Union([
  t.Object({ type: t.Literal('email'), to: t.String({ maxLength: 5 }) }, strict),
  t.Object(
    { type: t.Literal('sms'), to: t.String({ pattern: '^\\+\\d+$' }), voice: t.Optional(t.Boolean()) },
    strict,
  ),
])
// Two object variants nothing tells apart.
const Either = t.Union([t.Object({ a: t.Integer() }, strict), t.Object({ b: t.String() }, strict)])

const Settings = t.Object(
  {
    window: t.Optional(Nullable(Window)),
    steps: t.Optional(t.Array(t.Object({ delay: t.Optional(Delay) }, strict))),
    channel: t.Optional(Channel),
    either: t.Optional(Either),
    note: t.Optional(Nullable(t.String({ maxLength: 3 }))),
    tags: t.Optional(Nullable(t.Record(t.String(), t.Integer()))),
    level: t.Optional(t.Union([t.Literal('low'), t.Literal('high')])),
    count: t.Optional(t.Union([t.Integer(), t.String()])),
  },
  strict,
)

const TIME = 'must match the pattern ^([01][0-9]|2[0-3]):[0-5][0-9]$'
const rows: [name: string, value: unknown, details: FieldError[]][] = [
  [
    'a valid value',
    { window: { days: [1, 7], start: '09:00', end: '17:00' }, steps: [{ delay: 'P1D' }] },
    [],
  ],
  ['null for a nullable object', { window: null, note: null, tags: null }, []],
  [
    'nullable object: every failure of the object, each at its own path',
    { window: { days: [8, 0], start: '9am', end: '17:00' } },
    [
      { field: 'window.days[0]', message: 'must be at most 7' },
      { field: 'window.days[1]', message: 'must be at least 1' },
      { field: 'window.start', message: TIME },
    ],
  ],
  [
    'nullable object: unknown and missing members',
    { window: { days: [], start: '09:00', until: '17:00' } },
    [
      { field: 'window.end', message: 'is required' },
      { field: 'window.until', message: 'is not a known member' },
      { field: 'window.days', message: 'must have at least 1 item' },
    ],
  ],
  [
    'nullable object given a string',
    { window: 'weekdays' },
    [{ field: 'window', message: 'must be an object or null' }],
  ],
  [
    'nullable object given an array',
    { window: [1] },
    [{ field: 'window', message: 'must be an object or null' }],
  ],
  [
    'nullable string too long',
    { note: 'abcd' },
    [{ field: 'note', message: 'must be at most 3 characters' }],
  ],
  [
    'nullable string with a control character',
    { note: 'a\nb' },
    [{ field: 'note', message: 'must not contain control characters' }],
  ],
  [
    'nullable record: the member that fails',
    { tags: { a: 1, b: 'x' } },
    [{ field: 'tags.b', message: 'must be an integer' }],
  ],
  [
    'string|object given an object: each member named, in every array item',
    { steps: [{ delay: { days: -1, weeks: 1 } }, { delay: 'P1D' }, { delay: { hours: 1.5 } }] },
    [
      { field: 'steps[0].delay.weeks', message: 'is not a known member' },
      { field: 'steps[0].delay.days', message: 'must be at least 0' },
      { field: 'steps[2].delay.hours', message: 'must be an integer' },
    ],
  ],
  [
    'string|object given {}',
    { steps: [{ delay: {} }] },
    [{ field: 'steps[0].delay', message: 'must have at least 1 member' }],
  ],
  [
    'string|object given a long string',
    { steps: [{ delay: 'P1DT1H1M1S' }] },
    [{ field: 'steps[0].delay', message: 'must be at most 8 characters' }],
  ],
  [
    'string|object given a number',
    { steps: [{ delay: 2 }] },
    [{ field: 'steps[0].delay', message: 'must be a string or an object' }],
  ],
  [
    'tagged union: the variant its type names, every failure',
    { channel: { type: 'sms', to: 'abc', voice: 'yes' } },
    [
      { field: 'channel.to', message: 'must match the pattern ^\\+\\d+$' },
      { field: 'channel.voice', message: 'must be a boolean' },
    ],
  ],
  [
    'tagged union: the other variant',
    { channel: { type: 'email', to: 'toolong', voice: true } },
    [
      { field: 'channel.voice', message: 'is not a known member' },
      { field: 'channel.to', message: 'must be at most 5 characters' },
    ],
  ],
  [
    'tagged union: a type naming no variant',
    { channel: { type: 'fax', to: '1' } },
    [{ field: 'channel.type', message: '"fax" is not one of: email, sms' }],
  ],
  [
    'tagged union: no type',
    { channel: { to: '1' } },
    [{ field: 'channel.type', message: 'is required: one of email, sms' }],
  ],
  ['tagged union given a string', { channel: 'sms' }, [{ field: 'channel', message: 'must be an object' }]],
  // No variant is evident: one message at the union's path, as before.
  ['objects nothing tells apart', { either: { c: 1 } }, [{ field: 'either', message: 'a is required' }]],
  ['enum', { level: 'mid' }, [{ field: 'level', message: '"mid" is not one of: low, high' }]],
  [
    'integer|string given 2.5',
    { count: 2.5 },
    [{ field: 'count', message: 'must be an integer or a string' }],
  ],
  [
    'failures outside and inside unions together',
    { window: { days: [9], start: '09:00', end: '24:00' }, note: 'long', extra: 1 },
    [
      { field: 'extra', message: 'is not a known member' },
      { field: 'window.days[0]', message: 'must be at most 7' },
      { field: 'window.end', message: TIME },
      { field: 'note', message: 'must be at most 3 characters' },
    ],
  ],
]

describe('validate: unions report the evident variant’s failures at their own paths', () => {
  test.each(rows)('%s', (_name, value, details) => {
    expect(validate(Settings, value, 'input')).toEqual(details)
  })

  test('a root union names the root, or paths under it', () => {
    expect(validate(Nullable(Window), 'x', 'settings')).toEqual([
      { field: 'settings', message: 'must be an object or null' },
    ])
    expect(validate(Nullable(Window), { days: [1], start: '09:00' }, 'settings')).toEqual([
      { field: 'end', message: 'is required' },
    ])
  })
})

// ---- properties -----------------------------------------------------------------------------

const KEYS = ['window', 'steps', 'channel', 'either', 'note', 'tags', 'level', 'count']
const INNER = ['days', 'start', 'end', 'until', 'delay', 'hours', 'weeks', 'type', 'to', 'voice', 'a', 'b']
const STRINGS = [
  '09:00',
  '25:00',
  '9am',
  'P1D',
  'P1DT1H1M1S',
  'email',
  'sms',
  'fax',
  '+123',
  'low',
  'mid',
  '',
]

// Values shaped like the schema often enough to reach deep into its unions.
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -2, max: 9 }),
    fc.double({ min: -2, max: 9, noNaN: true }),
    fc.constantFrom(...STRINGS),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...INNER), tie('value'), { maxKeys: 4 }),
  ),
}))
const input = fc.dictionary(fc.constantFrom(...KEYS, 'extra'), value, { maxKeys: 4 })

/** The value a field names (`steps[0].delay`), or undefined; the root field is the whole value. */
function at(root: unknown, field: string): { found: boolean; value?: unknown } {
  let here = root
  for (const part of field.match(/[^.[\]]+/g) ?? []) {
    if (typeof here !== 'object' || here === null || !(part in here)) return { found: false }
    here = (here as Record<string, unknown>)[part]
  }
  return { found: true, value: here }
}
const parentOf = (field: string) => field.replace(/(\.[^.[\]]+|\[\d+\])$/, '')

describe('validate: properties over generated values', () => {
  test('valid exactly when TypeBox Value.Check says so (the happy path is unchanged)', () => {
    validate(Settings, {}, 'input')
    fc.assert(
      fc.property(input, (v) => {
        expect(validate(Settings, v, 'input').length === 0).toBe(Value.Check(Settings, v))
      }),
      { numRuns: 2000, seed: SEED },
    )
  })

  test('an invalid value: at least one detail, each field once, each naming a place in the value', () => {
    fc.assert(
      fc.property(input, (v) => {
        const details = validate(Settings, v, 'input')
        if (Value.Check(Settings, v)) return
        expect(details.length).toBeGreaterThan(0)
        const fields = details.map((d) => d.field)
        expect(new Set(fields).size).toBe(fields.length)
        for (const { field, message } of details) {
          expect(message.length).toBeGreaterThan(0)
          if (field === 'input') continue
          // The field is in the value, or is a member missing from (or named in) an object that is.
          const parent = parentOf(field)
          const holder = parent === field || parent === '' ? { found: true, value: v } : at(v, parent)
          expect(at(v, field).found || (holder.found && typeof holder.value === 'object')).toBe(true)
        }
      }),
      { numRuns: 2000, seed: SEED },
    )
  })
})

describe('validate: strings no store keeps', () => {
  const Free = t.Object(
    { name: t.String({ maxLength: 20 }), extra: t.Optional(t.Record(t.String(), t.Unknown())) },
    strict,
  )
  test.each([
    ['U+0000 in a free-form value', { name: 'a', extra: { k: ['x', 'a\u0000'] } }, 'extra.k[1]', /U\+0000/],
    ['U+0000 in a member name', { name: 'a', extra: { 'k\u0000': 1 } }, 'extra', /member name .*U\+0000/],
    [
      'an unpaired surrogate in a free-form value',
      { name: 'a', extra: { k: { x: '\udc00' } } },
      'extra.k.x',
      /unpaired surrogate/,
    ],
    ['an unpaired surrogate in a typed string', { name: 'a\ud800' }, 'name', /unpaired surrogate/],
  ])('%s: one detail naming it, though the schema accepts the value', (_what, value, field, message) => {
    expect(Value.Check(Free, value)).toBe(true)
    const errors = validate(Free, value, 'input')
    expect(errors.map((e) => e.field)).toEqual([field])
    expect(errors[0]!.message).toMatch(message)
  })
  test('a surrogate pair (an emoji), tabs and newlines in free-form values pass', () => {
    expect(validate(Free, { name: '😀', extra: { note: 'one\ntwo\tthree 😀' } }, 'input')).toEqual([])
  })
})
