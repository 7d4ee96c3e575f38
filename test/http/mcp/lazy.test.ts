import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'

// The MCP SDK and zod are loaded on the first /mcp/v1 request past the credential check, not
// when the app is built (idle RSS, README Performance): an instance no assistant talks to never
// loads them. A fresh process, since in this one another test may have loaded the SDK already.

const ROOT = join(import.meta.dir, '..', '..', '..')

describe('the MCP door loads the SDK on first use', () => {
  test('not at start, nor for the server card or a refused credential; then a tools/list answers', () => {
    const script = `
      const { createTestApp } = await import(${JSON.stringify(join(ROOT, 'test/helpers/app.ts'))})
      const sdkLoaded = () =>
        Object.keys(require.cache).some((k) => /node_modules\\/(@modelcontextprotocol\\/server|zod)\\//.test(k))
      const t = createTestApp()
      const steps = { built: sdkLoaded() }
      const card = await t.call('GET', '/.well-known/mcp/server-card.json', { key: null })
      steps.card = [card.status, sdkLoaded()]
      const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
      const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
      const refused = await t.call('POST', '/mcp/v1', { key: null, body: request, headers })
      steps.refused = [refused.status, sdkLoaded()]
      const listed = await t.call('POST', '/mcp/v1', { body: request, headers })
      steps.listed = [listed.status, listed.body.result.tools.length > 50, sdkLoaded()]
      t.close()
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
  })
})
