import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { type AccessLine, createLogger, type LogFields } from '../../src/lib/log'

// The JSON writer assembles its line by hand (it runs once per request). These tests hold it to
// the generic form it replaced: every member as JSON.stringify writes it, in the fields' order.

/** The writer as it was before the hand-assembled fast paths: the reference. */
function reference(time: string, level: string, msg: string, fields?: LogFields): string {
  let line = `{"time":"${time}","level":"${level}","msg":${JSON.stringify(msg)}`
  if (fields)
    for (const k in fields) {
      const v = fields[k]
      line += `,${JSON.stringify(k)}:${typeof v === 'number' && Number.isFinite(v) ? v : v === null ? 'null' : JSON.stringify(v)}`
    }
  return `${line}}`
}

const TIME = /^\{"time":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)"/

/** One line through the real logger, and the same line written by the reference. */
function both(msg: string, fields?: LogFields, level: 'info' | 'warn' | 'error' = 'info') {
  const lines: string[] = []
  const log = createLogger('json', (line) => lines.push(line))
  const before = Date.now()
  log[level](msg, fields)
  const after = Date.now()
  expect(lines).toHaveLength(1)
  const line = lines[0]!
  const time = TIME.exec(line)?.[1]
  expect(time).toBeDefined()
  // The time is the moment of the call, to the millisecond.
  const ms = Date.parse(time!)
  expect(ms).toBeGreaterThanOrEqual(before)
  expect(ms).toBeLessThanOrEqual(after)
  return { line, expected: reference(time!, level, msg, fields) }
}

describe('JSON log lines', () => {
  test('the access line: the same text as the generic writer, and valid JSON', () => {
    const fields = {
      method: 'GET',
      path: '/api/v1/clients/0193a0b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
      status: 200,
      duration_ms: 0.37,
      request_id: '0193a0b4-1c2d-7e3f-8a9b-0c1d2e3f4a5c',
      key_id: null,
    }
    const { line, expected } = both('request', fields)
    expect(line).toBe(expected)
    expect(JSON.parse(line)).toEqual({ time: expect.any(String), level: 'info', msg: 'request', ...fields })
  })

  test('strings JSON escapes (quotes, backslashes, controls, lone surrogates) are escaped as it does', () => {
    const awkward = [
      'say "hi"',
      'C:\\path',
      'tab\there',
      'line\nbreak',
      '\u0000\u001f',
      '\u007f\u0080\u009f', // DEL and C1: JSON.stringify leaves them as they are
      '\u2028\u2029',
      'lone \ud800 high',
      'lone \udfff low',
      'pair \ud83d\ude00 emoji',
      'é ü 中文',
      '',
      '/api/v1/clients/%22x%22?q="a"',
    ]
    for (const s of awkward) {
      const { line, expected } = both(s, { [s]: s, other: s, n: 1 }, 'warn')
      expect(line).toBe(expected)
    }
  })

  test('every kind of value is written as before (numbers, non-finite, null, undefined, objects)', () => {
    const fields: LogFields = {
      int: 3,
      float: 1.25,
      negative: -0,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      nil: null,
      missing: undefined,
      yes: true,
      list: [1, 'a', null],
      nested: { a: 'b"c', d: [1] },
      error: 'Error: boom\n    at x (y.ts:1:1)',
    }
    const { line, expected } = both('mixed', fields, 'error')
    expect(line).toBe(expected)
  })

  test('property: any message, keys and string values give the generic writer’s text', () => {
    // Any code point, or strings made mostly of the characters JSON treats specially.
    const awkward = fc.constantFrom(
      'a',
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u2028',
      'é',
      '\ud800',
      '\udc00',
    )
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: awkward }))
    fc.assert(
      fc.property(
        text,
        fc.dictionary(text, fc.oneof(text, fc.double(), fc.constant(null))),
        (msg, fields) => {
          const { line, expected } = both(msg, fields)
          expect(line).toBe(expected)
        },
      ),
      { numRuns: 500 },
    )
  })

  test('lines in the same millisecond share the time; a later millisecond gets its own', async () => {
    const lines: string[] = []
    const log = createLogger('json', (line) => lines.push(line))
    log.info('a')
    const first = TIME.exec(lines[0]!)![1]!
    // Wait for the clock to move on, then write again.
    const start = Date.now()
    while (Date.now() === start) await Bun.sleep(1)
    const before = Date.now()
    log.info('b')
    const second = TIME.exec(lines[1]!)![1]!
    expect(Date.parse(second)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first))
  })
})

describe('the access line', () => {
  /** `access(line)` through the real logger, with the reference text of info('request', line). */
  function access(line: AccessLine) {
    const lines: string[] = []
    const log = createLogger('json', (l) => lines.push(l))
    const before = Date.now()
    log.access!(line)
    const after = Date.now()
    expect(lines).toHaveLength(1)
    const time = TIME.exec(lines[0]!)?.[1]
    expect(Date.parse(time!)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(time!)).toBeLessThanOrEqual(after)
    return { line: lines[0]!, expected: reference(time!, 'info', 'request', line) }
  }

  const plain: AccessLine = {
    method: 'GET',
    path: '/api/v1/clients/0193a0b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
    status: 200,
    duration_ms: 0.37,
    request_id: '0193a0b4-1c2d-7e3f-8a9b-0c1d2e3f4a5c',
    key_id: '0193a0b4-1c2d-7e3f-8a9b-0c1d2e3f4a5d',
  }

  test('JSON: the same text as info("request", line), for plain and awkward members', () => {
    const cases: AccessLine[] = [
      plain,
      { ...plain, key_id: null, status: 404 },
      { ...plain, method: 'PROPFIND', path: '/x/"quoted"\\back\u0001\ud800é', duration_ms: Number.NaN },
      { ...plain, request_id: 'not-a-uuid', key_id: 'oauth:"client"', duration_ms: Number.POSITIVE_INFINITY },
    ]
    for (const c of cases) {
      const { line, expected } = access(c)
      expect(line).toBe(expected)
    }
  })

  test('property: any members give the text of info("request", line)', () => {
    const awkward = fc.constantFrom('a', '/', '"', '\\', '\n', '\u0000', '\u007f', 'é', '\ud800', '\udc00')
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: awkward }))
    fc.assert(
      fc.property(
        fc.record({
          method: text,
          path: text,
          status: fc.integer({ min: 100, max: 599 }),
          duration_ms: fc.double(),
          request_id: text,
          key_id: fc.option(text, { nil: null }),
        }),
        (line) => {
          const { line: written, expected } = access(line)
          expect(written).toBe(expected)
        },
      ),
      { numRuns: 500 },
    )
  })

  test('pretty: the same line as info("request", line)', () => {
    const lines: string[] = []
    const log = createLogger('pretty', (l) => lines.push(l))
    log.access!({ ...plain, key_id: null })
    log.info('request', { ...plain, key_id: null })
    // Both start with their own time (24 characters).
    expect(lines[0]!.slice(24)).toBe(lines[1]!.slice(24))
    expect(lines[0]!.slice(24)).toContain(' INFO  request method=GET path=/api/v1/clients/')
  })
})
