import { afterAll, describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { connectMcp, serveApp } from '../../helpers/mcp'
import { PORTAL_ENV, signIn } from './portal-helpers'

// "Key for an AI assistant" on /admin/api-keys (issue 13): a preset of scopes, the key shown once
// with the MCP URL and client snippets, and an assistant holding it sees only what the preset allows.

const t = await createTestApp({ env: PORTAL_ENV })
const http = serveApp(t.app)
afterAll(() => http.stop())

const keyOf = (html: string) =>
  /id="new-key" type="text" readonly value="(hrld_[A-Za-z0-9]+)"/.exec(html)?.[1]

describe('/admin/api-keys/assistant', () => {
  test('offered on the API keys page, with both presets and the MCP URL', async () => {
    const b = await signIn(t)
    expect((await b.get('/admin/api-keys')).text).toContain('href="/admin/api-keys/assistant"')
    const form = await b.get('/admin/api-keys/assistant')
    expect(form.status).toBe(200)
    expect(form.text).toContain('value="read-only" checked')
    expect(form.text).toContain('value="drafting"')
    expect(form.text).toContain('http://localhost:8080/mcp/v1')
  })

  test('read-only: the key, the URL and snippets once; its assistant lists only read tools', async () => {
    const b = await signIn(t)
    const created = await b.post('/admin/api-keys/assistant', { name: 'Claude', preset: 'read-only' })
    expect(created.status).toBe(200)
    expect(created.headers.get('cache-control')).toBe('no-store')
    const key = keyOf(created.text)!
    expect(key).toBeDefined()
    expect(created.text).toContain('value="http://localhost:8080/mcp/v1"')
    expect(created.text).toContain(
      `claude mcp add --transport http herald http://localhost:8080/mcp/v1 --header &#34;Authorization: Bearer ${key}&#34;`,
    )
    expect(created.text).toContain('.vscode/mcp.json')
    expect(created.text).not.toMatch(/Scopes: [^<]*:write/)
    const mcp = await connectMcp('v2', http.url, key)
    try {
      const tools = (await mcp.listTools()).tools
      expect(tools.map((x) => x.name)).toContain('get_campaign_stats')
      expect(tools.filter((x) => !x.annotations.readOnlyHint).map((x) => x.name)).toEqual([])
    } finally {
      await mcp.close()
    }
  })

  test('drafting: drafts campaigns, cannot launch them', async () => {
    const b = await signIn(t)
    const created = await b.post('/admin/api-keys/assistant', { name: 'Drafter', preset: 'drafting' })
    const key = keyOf(created.text)!
    const mcp = await connectMcp('v1', http.url, key)
    try {
      const names = (await mcp.listTools()).tools.map((x) => x.name)
      expect(names).toContain('create_campaign')
      expect(names).toContain('create_template')
      expect(names).not.toContain('launch_campaign')
      const list = await mcp.callTool({ name: 'create_list', arguments: { name: 'Drafted' } })
      expect(list.isError).toBeUndefined()
      const launch = await mcp.callTool({
        name: 'launch_campaign',
        arguments: { id: list.structuredContent.data.id, confirm: true },
      })
      expect(launch.structuredContent.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { required_scope: 'campaigns:launch' },
      })
    } finally {
      await mcp.close()
    }
  })

  test('no preset, or an unknown one → the form again with a message, no key', async () => {
    const b = await signIn(t)
    const refused = await b.post('/admin/api-keys/assistant', { name: 'X', preset: 'everything' })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('Choose read-only or drafting')
    expect(keyOf(refused.text)).toBeUndefined()
  })
})
