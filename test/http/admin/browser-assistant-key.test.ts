// "Key for an AI assistant" in real Chromium (issue 13): offered on the API keys page, the preset
// chosen with a radio button, the key and the MCP URL shown once with copyable client snippets,
// and an MCP client holding the key reaches the tool server. Axe, CSP and console clean.
import { describe, expect, test } from 'bun:test'
import {
  expectCleanPage,
  expectNoSeriousViolations,
  follow,
  screenshot,
  usePortal,
  visit,
} from '../../helpers/browser'
import { connectMcp } from '../../helpers/mcp'

const portal = await usePortal()
const KEY = /hrld_[A-Za-z0-9]{43}(?![A-Za-z0-9])/

describe('key for an AI assistant (browser)', () => {
  test('drafting preset → key, MCP URL and snippets shown once → the assistant lists draft tools, not launch', async () => {
    const page = await portal.pageAs('owner')
    await visit(page, '/admin/api-keys')
    await follow(page, page.getByRole('button', { name: 'Key for an AI assistant' }).first())
    expect(new URL(page.url()).pathname).toBe('/admin/api-keys/assistant')
    await expectNoSeriousViolations(page)
    await page.getByLabel('Name', { exact: true }).fill('Copilot drafts')
    await page.getByRole('radio', { name: /Drafting/ }).check()
    const created = await follow(page, page.getByRole('button', { name: 'Create key' }))
    expect(created.status()).toBe(200)
    const key = (await page.locator('#new-key').inputValue()).match(KEY)?.[0]
    expect(key).toBeDefined()
    const mcpUrl = await page.locator('#mcp-url').inputValue()
    expect(mcpUrl).toBe(`${portal.url}/mcp/v1`)
    expect(await page.locator('#config-1').innerText()).toContain(
      `claude mcp add --transport http herald ${mcpUrl}`,
    )
    await expectNoSeriousViolations(page)
    await screenshot(page, '/admin/api-keys/assistant/created')
    await expectCleanPage(page)

    const mcp = await connectMcp('v2', mcpUrl, key!)
    try {
      const names = (await mcp.listTools()).tools.map((x) => x.name)
      expect(names).toContain('create_campaign')
      expect(names).not.toContain('launch_campaign')
    } finally {
      await mcp.close()
    }
    await page.close()
  })
})
