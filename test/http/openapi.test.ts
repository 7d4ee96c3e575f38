import { describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { operations } from '../../src/http/operations'
import { createTestApp } from '../helpers/app'

const t = createTestApp()

describe('OpenAPI document', () => {
  test('validates with swagger-parser and carries version 1.0.0', async () => {
    const res = await t.call('GET', '/openapi.json', { key: null })
    expect(res.status).toBe(200)
    expect(res.body.info.version).toBe('1.0.0')
    await SwaggerParser.validate(structuredClone(res.body))
  })

  test('every registered operation appears with its path as written, scope and error responses', async () => {
    const doc = (await t.call('GET', '/openapi.json', { key: null })).body
    for (const o of operations) {
      const entry = doc.paths[o.path]?.[o.method.toLowerCase()]
      expect(entry).toBeDefined()
      expect(entry.operationId).toBe(o.id)
      expect(entry['x-required-scope']).toBe(o.auth === 'none' ? null : o.auth)
      expect(entry.responses['200']).toBeDefined()
      if (o.auth !== 'none') expect(entry.responses['401']).toBeDefined()
    }
    expect(doc.paths['/api/v1/clients/{id}'].get).toBeDefined()
    expect(doc.paths['/api/v1/api-keys'].post.requestBody).toBeDefined()
    // Streamed bodies are described by their media types.
    expect(Object.keys(doc.paths['/api/v1/contacts/imports'].post.requestBody.content)).toContain('text/csv')
    expect(Object.keys(doc.paths['/api/v1/inbound/email'].post.requestBody.content)).toContain(
      'message/rfc822',
    )
    expect(Object.keys(doc.paths).every((p: string) => !p.includes(':'))).toBe(true)
  })

  test('Swagger UI at /docs loads its embedded assets', async () => {
    const page = await t.call('GET', '/docs', { key: null })
    expect(page.status).toBe(200)
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js')
    expect((await t.call('GET', '/docs/assets/swagger-ui-bundle.js', { key: null })).status).toBe(200)
  })
})
