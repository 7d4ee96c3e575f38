import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

// What a JSON operation says of a body's Content-Type (DESIGN §4: application/json and any
// application/*+json are JSON; another type is 415). The acceptance review found an empty header
// named as "Content-Type  is not supported" (nothing between the words).

const t = await createTestApp()
const key = await t.key({ scopes: ['admin:*'], clientId: await t.client('Acme') })
const body = JSON.stringify({ name: 'L' })

const rows: { name: string; type: string | null; status: number; message?: string }[] = [
  { name: 'application/json', type: 'application/json', status: 200 },
  { name: 'with a charset', type: 'application/json; charset=utf-8', status: 200 },
  { name: 'a +json type', type: 'application/vnd.api+json', status: 200 },
  { name: 'no header at all (read as JSON)', type: null, status: 200 },
  {
    name: 'text/plain',
    type: 'text/plain',
    status: 415,
    message: 'Content-Type text/plain is not supported; send application/json',
  },
  {
    name: 'an empty header',
    type: '',
    status: 415,
    message: 'Content-Type (none) is not supported; send application/json',
  },
]

describe('POST /api/v1/lists by Content-Type', () => {
  for (const r of rows)
    test(`${r.name} → ${r.status}`, async () => {
      const headers: Record<string, string> = r.type === null ? {} : { 'content-type': r.type }
      const res = await t.app.handle(
        new Request('http://localhost:8080/api/v1/lists', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, ...headers },
          body: new TextEncoder().encode(body),
        }),
      )
      expect(res.status).toBe(r.status)
      if (r.message) {
        const err = ((await res.json()) as { error: { code: string; message: string } }).error
        expect(err.code).toBe('UNSUPPORTED_MEDIA_TYPE')
        expect(err.message).toBe(r.message)
      }
    })
})
