import { describe, expect, test } from 'bun:test'
import { openapi } from '@elysiajs/openapi'
import { docsPlugin, lazyDocument } from '../../src/http/openapi/docs'
import { buildOpenApiDocument } from '../../src/http/openapi/document'
import { operations } from '../../src/http/rest/registry'

// The OpenAPI document is built on its first read, not at start (idle RSS, docs/performance.md).
// What /openapi.json and /docs serve must be what the plugin served with the document built up
// front, byte for byte, and setting up the plugin or serving /docs must not build it.

const BASE = 'http://localhost:8080'

async function answer(app: { handle(r: Request): Promise<Response> }, path: string) {
  const res = await app.handle(new Request(`${BASE}${path}`))
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
}

describe('the OpenAPI document built on first read', () => {
  test('/openapi.json, /docs and /docs/ answer as with the document built up front', async () => {
    const lazy = docsPlugin(operations, BASE)
    const eager = docsPlugin(operations, BASE, { lazy: false })
    for (const path of ['/docs', '/docs/', '/openapi.json', '/openapi.json', '/docs']) {
      const got = await answer(lazy, path)
      expect(got.status).toBe(200)
      expect(got).toEqual(await answer(eager, path))
    }
    const doc = JSON.parse((await answer(lazy, '/openapi.json')).text)
    expect(Object.keys(doc.paths).length).toBeGreaterThan(50)
    expect(doc.info.title).toBe('Herald API')
  })

  test('setting up the plugin and serving /docs do not build it; /openapi.json builds it once', async () => {
    let builds = 0
    const document = lazyDocument(() => {
      builds++
      return buildOpenApiDocument(operations, BASE)
    })
    const app = openapi({
      path: '/docs',
      specPath: '/openapi.json',
      provider: 'swagger-ui',
      documentation: document as never,
    })
    expect((await answer(app, '/docs')).text).toContain('<title>Herald API</title>')
    expect(builds).toBe(0)
    const first = await answer(app, '/openapi.json')
    const second = await answer(app, '/openapi.json')
    expect(builds).toBe(1)
    expect(second.text).toBe(first.text)
    expect(JSON.parse(first.text).components.schemas.Error).toBeDefined()
  })
})
