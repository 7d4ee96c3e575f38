import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { EXCLUDED } from '../../../src/http/mcp/excluded'
import { operations } from '../../../src/http/rest/registry'
import { serveBinary, useBinary } from '../../helpers/binary'
import { answerOf, connectMcp, SDKS } from '../../helpers/mcp'
import { eventually } from '../../helpers/receiver'

// The MCP door of the compiled executable, as an assistant reaches it: both SDK clients and
// the MCP Inspector CLI against `herald serve` (capture provider, its own send worker).

const bin = useBinary('herald-mcp-bin-')
const root = join(import.meta.dir, '../../..')
const admin = `hrld_${'Mcp0'.repeat(8)}`
const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: admin } as Record<string, string>
const toolCount = operations.filter((o) => !(o.id in EXCLUDED)).length

let server: Awaited<ReturnType<typeof serveBinary>>
let url = ''
let writer = ''
let reader = ''

beforeAll(async () => {
  server = await serveBinary(bin, join(bin.work, 'data'), env)
  url = `${server.base}/mcp/v1`
  const rest = async (path: string, body: unknown, query = '') => {
    const r = await fetch(`${server.base}${path}${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (r.status !== 200) throw new Error(`${path} → ${r.status} ${await r.text()}`)
    return (await r.json()).data
  }
  const client = await rest('/api/v1/clients', { name: 'Acme' })
  const key = (scopes: string[]) =>
    rest('/api/v1/api-keys', { name: 'assistant', scopes, client_id: client.id, tier: 'unlimited' })
  writer = (await key(['admin:*'])).key
  reader = (await key(['contacts:read', 'campaigns:read'])).key
}, 60_000)

afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
})

describe('MCP against the binary', () => {
  for (const sdk of SDKS)
    test(`${sdk} client: scope-filtered tools, a campaign drafted, launched with confirm and sent`, async () => {
      const mcp = await connectMcp(sdk, url, writer)
      const readOnly = await connectMcp(sdk, url, reader)
      try {
        expect(mcp.protocolVersion()).toBe(sdk === 'v2' ? '2026-07-28' : '2025-11-25')
        expect((await mcp.listTools()).tools.length).toBe(toolCount)
        const visible = (await readOnly.listTools()).tools
        expect(visible.length).toBeGreaterThan(10)
        expect(visible.every((x) => x.annotations.readOnlyHint === true)).toBe(true)

        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await mcp.callTool({ name, arguments: args })
          if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent)}`)
          return answerOf(result).data
        }
        const list = await call('create_list', { name: `Binary ${sdk}` })
        for (const n of [1, 2])
          await call('create_contact', { email: `b${n}-${sdk}@example.com`, list_ids: [list.id] })
        const c = await call('create_campaign', {
          name: `Binary ${sdk}`,
          list_id: list.id,
          subject: 'Hello {{ contact.email }}',
          body_text: 'Hi there',
        })
        const refused = await mcp.callTool({ name: 'launch_campaign', arguments: { id: c.id } })
        expect(answerOf(refused).error.code).toBe('VALIDATION_FAILED')
        await call('launch_campaign', { id: c.id, confirm: true })
        await eventually(async () => {
          expect(await call('get_campaign_stats', { id: c.id })).toMatchObject({ status: 'sent', sent: 2 })
        }, 20_000)
        const denied = await readOnly.callTool({ name: 'create_list', arguments: { name: 'No' } })
        expect(answerOf(denied).error).toMatchObject({
          code: 'FORBIDDEN',
          details: { required_scope: 'lists:write' },
        })
      } finally {
        await mcp.close()
        await readOnly.close()
      }
    }, 60_000)

  test('401 challenge and the server card', async () => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp/v1"')
    const card = await fetch(`${server.base}/.well-known/mcp/server-card.json`)
    expect(card.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect((await card.json()).tools.length).toBe(toolCount)
  })

  test('the MCP Inspector CLI lists the tools', async () => {
    const inspector = join(root, 'node_modules/@modelcontextprotocol/inspector-cli')
    const proc = Bun.spawn(
      [
        join(root, 'node_modules/.bin/mcp-inspector-cli'),
        '--cli',
        url,
        '--transport',
        'http',
        '--method',
        'tools/list',
        '--header',
        `Authorization: Bearer ${reader}`,
      ],
      // The CLI finds its own package.json relative to the working directory.
      { cwd: join(inspector, 'build'), stdout: 'pipe', stderr: 'pipe' },
    )
    const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    expect(code).toBe(0)
    const names = JSON.parse(out).tools.map((x: { name: string }) => x.name)
    expect(names).toContain('list_contacts')
    expect(names).toContain('get_campaign_stats')
    expect(names).not.toContain('create_contact')
  }, 30_000)
})
