import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Glob } from 'bun'

// The MCP door imports the server SDK only through src/http/mcp/sdk.ts, which installs zod's
// compiled mode first: the SDK's schemas are built with the generated fast path only when that
// module is evaluated before the SDK's.

const ROOT = join(import.meta.dir, '..', '..', '..')

describe('the MCP server SDK is loaded through src/http/mcp/sdk.ts', () => {
  test('no other source file imports the server SDK or zod', async () => {
    const direct: string[] = []
    for await (const file of new Glob('src/**/*.ts').scan(ROOT)) {
      if (file === 'src/http/mcp/sdk.ts') continue
      const text = await Bun.file(join(ROOT, file)).text()
      if (
        /from '(@modelcontextprotocol\/(server|core)|zod)(\/[^']*)?'|import '(zod|@modelcontextprotocol)/.test(
          text,
        )
      )
        direct.push(file)
    }
    expect(direct).toEqual([])
  })

  test("the SDK's schemas carry zod's compiled fast path, and still refuse what they refused", () => {
    // A fresh process: in this one a test may have loaded the SDK (through a client) already.
    const script = `
      const sdk = await import(${JSON.stringify(join(ROOT, 'src/http/mcp/sdk.ts'))})
      const request = sdk.specTypeSchemas.JSONRPCRequest
      console.log(JSON.stringify({
        compiled: typeof request._zod.run.__originalRun === 'function',
        request: sdk.isJSONRPCRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call' }),
        noMethod: sdk.isJSONRPCRequest({ jsonrpc: '2.0', id: 1 }),
        initialize: sdk.isInitializeRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }))`
    const run = Bun.spawnSync([process.execPath, '-e', script], { cwd: ROOT })
    expect(run.stderr.toString()).toBe('')
    expect(JSON.parse(run.stdout.toString())).toEqual({
      compiled: true,
      request: true,
      noMethod: false,
      initialize: false,
    })
  })
})
