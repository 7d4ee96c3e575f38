import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { mountMcp } from '../../../src/http/mcp/plugin'
import { createPipeline } from '../../../src/http/rest/pipeline'
import { operations } from '../../../src/http/rest/registry'
import { BASE, createTestApp } from '../../helpers/app'

// The MCP SDK and zod are loaded on the first /mcp/v1 request past the credential check, not
// when the app is built (idle RSS, docs/performance.md): an instance no assistant talks to never
// loads them. The first test catches a static import of the SDK from what the app loads (a fresh
// process, since in this one another test may have loaded it already); the second, when the
// server is loaded (a load started at mount and still in flight would pass the first).

const ROOT = join(import.meta.dir, '..', '..', '..')

describe('the MCP door loads the SDK on first use', () => {
  test('not at start, nor for the server card or a refused credential; then a tools/list answers', () => {
    const script = `
      const { createTestApp } = await import(${JSON.stringify(join(ROOT, 'test/helpers/app.ts'))})
      const sdkLoaded = () =>
        Object.keys(require.cache).some((k) => /node_modules\\/(@modelcontextprotocol\\/server|zod)\\//.test(k))
      const t = await createTestApp()
      const steps = { built: sdkLoaded() }
      const card = await t.call('GET', '/.well-known/mcp/server-card.json', { key: null })
      steps.card = [card.status, sdkLoaded()]
      const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
      const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
      const refused = await t.call('POST', '/mcp/v1', { key: null, body: request, headers })
      steps.refused = [refused.status, sdkLoaded()]
      const listed = await t.call('POST', '/mcp/v1', { body: request, headers })
      steps.listed = [listed.status, listed.body.result.tools.length > 50, sdkLoaded()]
      await t.close()
      console.log(JSON.stringify(steps))`
    // Outside the test runner (NODE_ENV unset): the helper then leaves closing the app to the script.
    const { NODE_ENV: _, ...env } = process.env
    const run = Bun.spawnSync([process.execPath, '-e', script], { cwd: ROOT, env })
    expect(run.stderr.toString()).toBe('')
    expect(JSON.parse(run.stdout.toString())).toEqual({
      built: false,
      card: [200, false],
      refused: [401, false],
      listed: [200, true, true],
    })
  }, 60_000) // a whole process starting an app: seconds on a loaded 2-core machine

  test('the server is loaded once, when the first admitted /mcp/v1 requests arrive (two at once)', async () => {
    const t = await createTestApp()
    let loads = 0
    const app = new Elysia()
    mountMcp(app, createPipeline(t.ctx), operations, {
      loadServer: () => {
        loads++
        return import('../../../src/http/mcp/server')
      },
    })
    const post = (key: string | null) =>
      app.handle(
        new Request(`${BASE}/mcp/v1`, {
          method: 'POST',
          headers: {
            ...(key ? { authorization: `Bearer ${key}` } : {}),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        }),
      )
    expect(loads).toBe(0)
    expect((await app.handle(new Request(`${BASE}/.well-known/mcp/server-card.json`))).status).toBe(200)
    expect((await post(null)).status).toBe(401)
    expect(loads).toBe(0)
    const answers = await Promise.all([post(t.adminKey), post(t.adminKey)])
    expect(answers.map((r) => r.status)).toEqual([200, 200])
    expect(loads).toBe(1)
    expect(
      ((await answers[0]!.json()) as { result: { tools: unknown[] } }).result.tools.length,
    ).toBeGreaterThan(50)
    expect((await post(t.adminKey)).status).toBe(200)
    expect(loads).toBe(1)
  })

  test('a failed load is a 500 error body for that request only: the next request loads again', async () => {
    const t = await createTestApp()
    let loads = 0
    const app = new Elysia()
    mountMcp(app, createPipeline(t.ctx), operations, {
      loadServer: () => {
        loads++
        return loads === 1 ? Promise.reject(new Error('load failed')) : import('../../../src/http/mcp/server')
      },
    })
    const post = () =>
      app.handle(
        new Request(`${BASE}/mcp/v1`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.adminKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        }),
      )
    const failed = await post()
    expect(failed.status).toBe(500)
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('INTERNAL_ERROR')
    expect((await post()).status).toBe(200)
    expect(loads).toBe(2)
  })
})
