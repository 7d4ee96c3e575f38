import { describe, expect, test } from 'bun:test'
import { ServiceError } from '../../src/errors'
import { handled } from '../../src/http/rest/envelope'
import type { LogFields, Logger } from '../../src/lib/log'

// The one wrapper every door answers through: request id, error mapping, access log.

function recordingLog() {
  const lines: { level: string; msg: string; fields?: LogFields }[] = []
  const log: Logger = {
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
  }
  return { log, lines }
}

const MINE = '3b241101-e2bb-4255-8caf-4136c566a962'
const request = (headers: Record<string, string> = {}) =>
  new Request('http://localhost/t/o/abc?x=1', { headers })

describe('handled', () => {
  test('the caller’s UUID request id reaches the handler, the header and the access line', async () => {
    const { log, lines } = recordingLog()
    let seen = ''
    const res = await handled({ log }, { request: request({ 'x-request-id': MINE }) }, (meta) => {
      seen = meta.requestId
      meta.keyId = 'k1'
      return new Response('ok', { status: 201 })
    })
    expect(seen).toBe(MINE)
    expect(res.status).toBe(201)
    expect(res.headers.get('x-request-id')).toBe(MINE)
    expect(lines).toEqual([
      {
        level: 'info',
        msg: 'request',
        fields: expect.objectContaining({
          method: 'GET',
          // Neither the query nor the link's token is logged: the route names the path.
          path: '/t/o/:token',
          status: 201,
          request_id: MINE,
          key_id: 'k1',
        }),
      },
    ])
  })

  test('a thrown ServiceError becomes its status and error body, not logged as an error', async () => {
    const { log, lines } = recordingLog()
    const res = await handled({ log }, { request: request({ 'x-request-id': 'nope' }) }, async () => {
      throw new ServiceError('NOT_FOUND', 'No such link')
    })
    expect(res.status).toBe(404)
    const id = res.headers.get('x-request-id')!
    expect(id).not.toBe('nope')
    expect(await res.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'No such link', request_id: id },
    })
    expect(lines.map((l) => [l.level, l.fields?.status])).toEqual([['info', 404]])
  })

  test('anything else is a 500 without a stack trace, logged with the request id', async () => {
    const { log, lines } = recordingLog()
    const res = await handled({ log }, { request: request() }, () => {
      throw new Error('disk on fire')
    })
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(text).not.toContain('disk on fire')
    const id = res.headers.get('x-request-id')
    expect(JSON.parse(text).error).toMatchObject({ code: 'INTERNAL_ERROR', request_id: id })
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'request failed', fields: { request_id: id } })
    expect(String(lines[0]!.fields!.error)).toContain('disk on fire')
    expect(lines[1]).toMatchObject({ level: 'info', msg: 'request', fields: { status: 500 } })
  })
})
