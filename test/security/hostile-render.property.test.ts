import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createTestApp } from '../helpers/app'
import { leastLag } from '../helpers/event-loop-lag'

// Property: whatever Liquid a tenant writes — loops over ranges nested a few deep, long
// strings, appends and captures repeated in loops, deep nesting of ifs — previewing it through
// the API is a 200 or a 422 with the error envelope, never a 5xx, and the event loop never
// stalls over 100 ms (a setInterval lag probe runs throughout): renders happen on render
// threads within their budget, and loops and output are bounded.
// FC_SEED=<n> replays a failing run; FC_RUNS=<n> changes the number of templates (each costs at
// most about the 100 ms preview budget).

const RUNS = Number(process.env.FC_RUNS ?? 40)
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined

const t = await createTestApp({ overHttp: true })
const clientId = await t.client('Hostile')
const writer = await t.key({ scopes: ['templates:write'], clientId })
const reader = await t.key({ scopes: ['campaigns:read'], clientId })

const word = fc.constantFrom('a', 'xyz', '{{ contact.first_name }}', '<b>bold</b>', '—é')
const bigNumber = fc.oneof(
  fc.integer({ min: 1, max: 50 }),
  fc.integer({ min: 1_000, max: 200_000 }),
  fc.integer({ min: 1_000_000, max: 100_000_000 }),
)

/** A Liquid fragment `depth` levels deep at most. */
const fragment: (depth: number) => fc.Arbitrary<string> = (depth) => {
  const leaf = fc.oneof(
    word,
    fc.string({ minLength: 0, maxLength: 40 }).map((s) => s.replace(/[{}%]/g, '')),
    fc.integer({ min: 1, max: 2_000 }).map((n) => 'z'.repeat(n)),
    fc.constantFrom(
      '{% assign s = s | append: s %}',
      '{% assign s = s | append: "0123456789" %}',
      '{{ s }}',
      '{{ s | size }}',
      '{% capture s %}{{ s }}{{ s }}{% endcapture %}',
      '{{ s | replace: "0", "0123456789" }}',
      '{{ s | split: "" | reverse | join: "-" }}',
    ),
  )
  if (depth <= 0) return leaf
  const inner = fragment(depth - 1)
  return fc.oneof(
    { weight: 2, arbitrary: leaf },
    fc
      .tuple(fc.constantFrom('i', 'j', 'k'), bigNumber, fc.array(inner, { minLength: 1, maxLength: 3 }))
      .map(([v, n, body]) => `{% for ${v} in (1..${n}) %}${body.join('')}{% endfor %}`),
    fc
      .array(inner, { minLength: 1, maxLength: 3 })
      .map((body) => `{% if contact.first_name %}${body.join('')}{% else %}x{% endif %}`),
    fc
      .array(inner, { minLength: 1, maxLength: 3 })
      .map((body) => `{% capture c %}${body.join('')}{% endcapture %}{{ c }}{{ c }}`),
  )
}

/** Loops over ranges nested one to three deep around fragments: most of them run far too long. */
const nestedLoops = fc
  .tuple(
    fc.array(bigNumber, { minLength: 1, maxLength: 3 }),
    fc.array(fragment(2), { minLength: 1, maxLength: 3 }),
  )
  .map(([ranges, body]) =>
    ranges.reduceRight((inner, n, i) => `{% for v${i} in (1..${n}) %}${inner}{% endfor %}`, body.join('')),
  )

const template = fc.record({
  field: fc.constantFrom('subject', 'body_html', 'body_text'),
  body: fc
    .array(fc.oneof(nestedLoops, fragment(4)), { minLength: 1, maxLength: 3 })
    .map((parts) => `{% assign s = "ab" %}${parts.join('')}`),
})

describe('hostile Liquid previewed through the API', () => {
  test('never a 5xx, never an event-loop stall over 100 ms', async () => {
    // Warm up first (routes, schemas, the render threads): loading code is no render.
    const warm = await t.call('POST', '/api/v1/templates', {
      key: writer,
      body: { name: 'W', body_text: 'w' },
    })
    await t.call('POST', `/api/v1/templates/${warm.body.data.id}/preview`, { key: reader, body: {} })
    await fc.assert(
      fc.asyncProperty(template, async ({ field, body }) => {
        const fields = { subject: 'S', body_text: 'T', [field]: body }
        const created = await t.call('POST', '/api/v1/templates', {
          key: writer,
          body: { name: 'Hostile', ...fields },
        })
        // Too large or unparseable for a template: refused at save, and nothing to preview.
        if (created.status !== 200) {
          expect(created.status).toBe(422)
          return
        }
        const preview = () =>
          t.call('POST', `/api/v1/templates/${created.body.data.id}/preview`, {
            key: reader,
            body: { sample: { contact: { first_name: 'Ann' } } },
          })
        const res = await preview()
        expect(res.status === 200 || res.status === 422).toBe(true)
        if (res.status === 422) {
          expect(res.body.error.code).toBe('VALIDATION_FAILED')
          expect(typeof res.body.error.details[0].message).toBe('string')
        }
        expect(await leastLag(preview, 100)).toBeLessThan(100)
      }),
      { numRuns: RUNS, seed: SEED },
    )
  }, 120_000)
})
