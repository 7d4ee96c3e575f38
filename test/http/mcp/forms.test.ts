import { afterAll, describe, expect, test } from 'bun:test'
import { createTestApp } from '../../helpers/app'
import { answerOf, connectMcp, SDKS, serveApp } from '../../helpers/mcp'

// An assistant makes a signup form through the MCP tools generated from the forms operations,
// with each official SDK client: create, read the embed code, disable, and a read-only key is
// refused the write.

const t = await createTestApp()
const acme = await t.client('Acme')
const writer = await t.key({ scopes: ['lists:write'], clientId: acme })
const reader = await t.key({ scopes: ['contacts:read'], clientId: acme })
const server = serveApp(t.app)
afterAll(() => server.stop())
const list = (await t.call('POST', '/api/v1/lists', { key: writer, body: { name: 'News' } })).body.data.id

describe('forms through MCP', () => {
  for (const sdk of SDKS)
    test(`${sdk}: create_form, get_form_embed, update_form; a reader cannot create`, async () => {
      const mcp = await connectMcp(sdk, server.url, writer)
      const names = (await mcp.listTools()).tools.map((tool: { name: string }) => tool.name)
      for (const name of [
        'list_forms',
        'create_form',
        'get_form',
        'update_form',
        'delete_form',
        'get_form_embed',
      ])
        expect(names).toContain(name)
      const made = answerOf(
        await mcp.callTool({
          name: 'create_form',
          arguments: { name: 'Footer', list_ids: [list], fields: ['first_name'], consent_text: 'Yes' },
        }),
      ).data
      expect(made).toMatchObject({ client_id: acme, fields: ['email', 'first_name'], double_opt_in: true })
      const embed = answerOf(await mcp.callTool({ name: 'get_form_embed', arguments: { id: made.id } })).data
      expect(embed.html).toContain(`/f/${made.id}"`)
      const off = answerOf(
        await mcp.callTool({ name: 'update_form', arguments: { id: made.id, status: 'disabled' } }),
      ).data
      expect(off.status).toBe('disabled')
      await mcp.close()

      const ro = await connectMcp(sdk, server.url, reader)
      const denied = await ro.callTool({
        name: 'create_form',
        arguments: { name: 'Nope', list_ids: [list], consent_text: 'Yes' },
      })
      expect(denied.isError).toBe(true)
      await ro.close()
    })
})
